// DeviceMonitor over NVML, the library behind nvidia-smi. It is opened with dlopen at run time,
// not linked: the runner must start on machines without an NVIDIA driver (CPU nodes, CI), and
// NVML's header and stub library are not part of every CUDA toolkit install. The few functions
// used have had the same C signatures since NVML 5; their types are declared here.
#include <dlfcn.h>
#include <unistd.h>

#include <memory>

#include <fmt/format.h>

#include "runner/api/gpu_info.hpp"
#include "runner/measure/device_monitor.hpp"

namespace runner {

namespace {

using NvmlReturn = int;  // nvmlReturn_t; NVML_SUCCESS is 0
struct NvmlDeviceOpaque;
using NvmlDevice = NvmlDeviceOpaque*;  // nvmlDevice_t
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;         // nvmlClockType_t NVML_CLOCK_SM
constexpr int kNvmlTemperatureGpu = 0;  // nvmlTemperatureSensors_t NVML_TEMPERATURE_GPU

// nvmlPciInfo_t, the layout of nvmlDeviceGetPciInfo_v3 (unchanged since NVML 2.285).
struct NvmlPciInfo {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};

// The NVML library, loaded and initialised once for the whole process and shared by the monitor,
// the listing and the CPU affinity. A function a driver lacks stays null; each user checks the
// ones it needs, so an old driver loses only what it cannot do.
struct Nvml {
  std::string why_not;             // empty when the library is loaded and initialised
  NvmlReturn (*init)() = nullptr;  // nvmlInit_v2
  const char* (*error_string)(NvmlReturn) = nullptr;                   // nvmlErrorString
  NvmlReturn (*count)(unsigned*) = nullptr;                            // nvmlDeviceGetCount_v2
  NvmlReturn (*handle_by_index)(unsigned, NvmlDevice*) = nullptr;      // ..._v2
  NvmlReturn (*handle_by_bus_id)(const char*, NvmlDevice*) = nullptr;  // ..._v2
  NvmlReturn (*name)(NvmlDevice, char*, unsigned) = nullptr;           // nvmlDeviceGetName
  NvmlReturn (*uuid)(NvmlDevice, char*, unsigned) = nullptr;           // nvmlDeviceGetUUID
  NvmlReturn (*pci)(NvmlDevice, NvmlPciInfo*) = nullptr;               // nvmlDeviceGetPciInfo_v3
  NvmlReturn (*mig_mode)(NvmlDevice, unsigned*, unsigned*) = nullptr;  // NVML 11+
  NvmlReturn (*cpu_affinity)(NvmlDevice, unsigned, unsigned long*) = nullptr;
  NvmlReturn (*clock)(NvmlDevice, int, unsigned*) = nullptr;  // nvmlDeviceGetClockInfo
  NvmlReturn (*max_clock)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*default_app_clock)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*temperature)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*power_mw)(NvmlDevice, unsigned*) = nullptr;

  bool usable() const { return why_not.empty(); }
};

template <typename Fn>
void load(void* lib, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
}

Nvml load_nvml() {
  Nvml api;
  // Never closed: NVML stays loaded for the life of the process, as the handles it gives do.
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    api.why_not = fmt::format("cannot load NVML (libnvidia-ml.so.1): {}", dlerror());
    return api;
  }
  load(lib, "nvmlInit_v2", api.init);
  load(lib, "nvmlErrorString", api.error_string);
  load(lib, "nvmlDeviceGetCount_v2", api.count);
  load(lib, "nvmlDeviceGetHandleByIndex_v2", api.handle_by_index);
  load(lib, "nvmlDeviceGetHandleByPciBusId_v2", api.handle_by_bus_id);
  load(lib, "nvmlDeviceGetName", api.name);
  load(lib, "nvmlDeviceGetUUID", api.uuid);
  load(lib, "nvmlDeviceGetPciInfo_v3", api.pci);
  load(lib, "nvmlDeviceGetMigMode", api.mig_mode);
  load(lib, "nvmlDeviceGetCpuAffinity", api.cpu_affinity);
  load(lib, "nvmlDeviceGetClockInfo", api.clock);
  load(lib, "nvmlDeviceGetMaxClockInfo", api.max_clock);
  load(lib, "nvmlDeviceGetDefaultApplicationsClock", api.default_app_clock);
  load(lib, "nvmlDeviceGetTemperature", api.temperature);
  load(lib, "nvmlDeviceGetPowerUsage", api.power_mw);
  if (!api.init || !api.error_string)
    api.why_not = "libnvidia-ml.so.1 has no nvmlInit_v2 (a driver older than NVML 5?)";
  return api;
}

// Loaded once; initialised once in each process. NVML's state does not survive fork(): a worker,
// forked after the parent listed the GPUs through NVML, gets no answer from the parent's handles
// (every record's clock was empty until each process initialised its own), so a process whose pid
// is not the one that initialised it initialises it again. Called by one thread of a process at a
// time (the parent's listing, then a worker's measurement).
const Nvml& nvml() {
  static Nvml api = load_nvml();
  static bool loaded = api.usable();
  static pid_t initialised_in = 0;
  if (!loaded || initialised_in == ::getpid()) return api;
  initialised_in = ::getpid();
  const NvmlReturn e = api.init();
  api.why_not = e == kNvmlSuccess ? "" : fmt::format("nvmlInit failed: {}", api.error_string(e));
  return api;
}

class NvmlMonitor final : public DeviceMonitor {
 public:
  NvmlMonitor(const Nvml& api, NvmlDevice device, double min_clock_mhz)
      : api_(api), device_(device), min_clock_mhz_(min_clock_mhz) {}

  std::optional<double> sm_clock_mhz() override { return read(api_.clock, kNvmlClockSm); }
  double min_sm_clock_mhz() const override { return min_clock_mhz_; }
  std::optional<double> temperature_c() override {
    return read(api_.temperature, kNvmlTemperatureGpu);
  }
  std::optional<double> power_w() override {
    unsigned mw = 0;
    if (api_.power_mw(device_, &mw) != kNvmlSuccess) return std::nullopt;
    return mw / 1000.0;
  }

 private:
  std::optional<double> read(NvmlReturn (*fn)(NvmlDevice, int, unsigned*), int what) {
    unsigned v = 0;
    if (fn(device_, what, &v) != kNvmlSuccess) return std::nullopt;
    return static_cast<double>(v);
  }

  const Nvml& api_;
  NvmlDevice device_;
  double min_clock_mhz_;
};

struct Opened {
  std::unique_ptr<DeviceMonitor> monitor;
  std::string why_not;
};

Opened open_nvml() {
  const GpuInfo& gpu = gpu_info();
  if (!gpu.present) return {nullptr, "no GPU: " + gpu.absent_reason};
  const Nvml& api = nvml();
  if (!api.usable()) return {nullptr, api.why_not};
  if (!api.handle_by_bus_id || !api.clock || !api.max_clock || !api.default_app_clock ||
      !api.temperature || !api.power_mw)
    return {nullptr, "NVML lacks a function the monitor needs (a driver older than NVML 5?)"};
  // NVML numbers devices in its own order; the PCI bus id is the one name it shares with CUDA
  // (whose device 0 may be any GPU under CUDA_VISIBLE_DEVICES).
  NvmlDevice device = nullptr;
  if (const NvmlReturn e = api.handle_by_bus_id(gpu.pci_bus_id.c_str(), &device); e != kNvmlSuccess)
    return {nullptr, fmt::format("NVML does not know the GPU at {}: {}", gpu.pci_bus_id,
                                 api.error_string(e))};
  // The reference is the default applications clock, the SM clock the board runs sustained work
  // at by default; boards that do not report one (consumer cards) are judged by their maximum.
  unsigned reference = 0;
  if (api.default_app_clock(device, kNvmlClockSm, &reference) != kNvmlSuccess || reference == 0)
    if (api.max_clock(device, kNvmlClockSm, &reference) != kNvmlSuccess) reference = 0;
  return {std::make_unique<NvmlMonitor>(api, device, kThrottleFraction * reference), ""};
}

const Opened& opened() {
  static const Opened o = open_nvml();
  return o;
}

}  // namespace

std::vector<int> gpu_cpu_affinity(const std::string& pci_bus_id) {
  std::vector<int> cpus;
  const Nvml& api = nvml();
  if (pci_bus_id.empty() || !api.usable() || !api.handle_by_bus_id || !api.cpu_affinity)
    return cpus;
  NvmlDevice device = nullptr;
  if (api.handle_by_bus_id(pci_bus_id.c_str(), &device) != kNvmlSuccess) return cpus;
  constexpr unsigned kWords = 64;  // 4096 CPUs
  unsigned long set[kWords] = {};
  if (api.cpu_affinity(device, kWords, set) != kNvmlSuccess) return cpus;
  constexpr unsigned kBits = 8 * sizeof(unsigned long);
  for (unsigned w = 0; w < kWords; ++w)
    for (unsigned b = 0; b < kBits; ++b)
      if (set[w] & (1UL << b)) cpus.push_back(static_cast<int>(w * kBits + b));
  return cpus;
}

std::optional<std::vector<NvmlGpu>> nvml_gpus(std::string& why_not) {
  const Nvml& api = nvml();
  if (!api.usable()) {
    why_not = api.why_not;
    return std::nullopt;
  }
  if (!api.count || !api.handle_by_index || !api.name || !api.uuid || !api.pci) {
    why_not = "NVML lacks a function the listing needs (a driver older than NVML 2.285?)";
    return std::nullopt;
  }
  unsigned n = 0;
  if (const NvmlReturn e = api.count(&n); e != kNvmlSuccess) {
    why_not = fmt::format("nvmlDeviceGetCount failed: {}", api.error_string(e));
    return std::nullopt;
  }
  std::vector<NvmlGpu> gpus;
  for (unsigned i = 0; i < n; ++i) {
    NvmlDevice device = nullptr;
    // A GPU this process may not open (a cgroup of a Slurm job) is not listed, as CUDA skips it.
    if (api.handle_by_index(i, &device) != kNvmlSuccess) continue;
    NvmlGpu g;
    char text[96] = {};
    NvmlPciInfo info{};
    if (api.name(device, text, sizeof text) != kNvmlSuccess) continue;
    g.name = text;
    if (api.uuid(device, text, sizeof text) != kNvmlSuccess) continue;
    g.uuid = text;
    if (api.pci(device, &info) != kNvmlSuccess) continue;
    g.domain = info.domain;
    g.bus = info.bus;
    g.device = info.device;
    unsigned current = 0, pending = 0;
    g.mig_enabled =
        api.mig_mode && api.mig_mode(device, &current, &pending) == kNvmlSuccess && current == 1;
    gpus.push_back(std::move(g));
  }
  return gpus;
}

DeviceMonitor* gpu_monitor() {
  return opened().monitor.get();
}
std::string gpu_monitor_unavailable_reason() {
  return opened().why_not;
}

}  // namespace runner
