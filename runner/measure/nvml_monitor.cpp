// DeviceMonitor over NVML, the library behind nvidia-smi. It is opened with dlopen at run time,
// not linked: the runner must start on machines without an NVIDIA driver (CPU nodes, CI), and
// NVML's header and stub library are not part of every CUDA toolkit install. The few functions
// used have had the same C signatures since NVML 5; their types are declared here.
#include <dlfcn.h>

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

struct NvmlApi {
  NvmlReturn (*init)() = nullptr;                                      // nvmlInit_v2
  NvmlReturn (*handle_by_bus_id)(const char*, NvmlDevice*) = nullptr;  // ..._v2
  NvmlReturn (*clock)(NvmlDevice, int, unsigned*) = nullptr;           // nvmlDeviceGetClockInfo
  NvmlReturn (*max_clock)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*default_app_clock)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*temperature)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*power_mw)(NvmlDevice, unsigned*) = nullptr;
  const char* (*error_string)(NvmlReturn) = nullptr;
};

template <typename Fn>
bool load(void* lib, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  return fn != nullptr;
}

class NvmlMonitor final : public DeviceMonitor {
 public:
  NvmlMonitor(const NvmlApi& api, NvmlDevice device, double min_clock_mhz)
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

  NvmlApi api_;
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
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return {nullptr, fmt::format("cannot load NVML (libnvidia-ml.so.1): {}", dlerror())};
  NvmlApi api;
  if (!load(lib, "nvmlInit_v2", api.init) ||
      !load(lib, "nvmlDeviceGetHandleByPciBusId_v2", api.handle_by_bus_id) ||
      !load(lib, "nvmlDeviceGetClockInfo", api.clock) ||
      !load(lib, "nvmlDeviceGetMaxClockInfo", api.max_clock) ||
      !load(lib, "nvmlDeviceGetDefaultApplicationsClock", api.default_app_clock) ||
      !load(lib, "nvmlDeviceGetTemperature", api.temperature) ||
      !load(lib, "nvmlDeviceGetPowerUsage", api.power_mw) ||
      !load(lib, "nvmlErrorString", api.error_string))
    return {nullptr, "NVML lacks a function the runner needs (a driver older than NVML 5?)"};
  if (const NvmlReturn e = api.init(); e != kNvmlSuccess)
    return {nullptr, fmt::format("nvmlInit failed: {}", api.error_string(e))};
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
  if (pci_bus_id.empty()) return cpus;
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return cpus;
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*handle_by_bus_id)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*affinity)(NvmlDevice, unsigned, unsigned long*) =
      nullptr;  // nvmlDeviceGetCpuAffinity
  if (!load(lib, "nvmlInit_v2", init) ||
      !load(lib, "nvmlDeviceGetHandleByPciBusId_v2", handle_by_bus_id) ||
      !load(lib, "nvmlDeviceGetCpuAffinity", affinity) || init() != kNvmlSuccess)
    return cpus;
  NvmlDevice device = nullptr;
  if (handle_by_bus_id(pci_bus_id.c_str(), &device) != kNvmlSuccess) return cpus;
  constexpr unsigned kWords = 64;  // 4096 CPUs
  unsigned long set[kWords] = {};
  if (affinity(device, kWords, set) != kNvmlSuccess) return cpus;
  constexpr unsigned kBits = 8 * sizeof(unsigned long);
  for (unsigned w = 0; w < kWords; ++w)
    for (unsigned b = 0; b < kBits; ++b)
      if (set[w] & (1UL << b)) cpus.push_back(static_cast<int>(w * kBits + b));
  return cpus;
}

std::optional<std::vector<NvmlGpu>> nvml_gpus(std::string& why_not) {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    why_not = fmt::format("cannot load NVML (libnvidia-ml.so.1): {}", dlerror());
    return std::nullopt;
  }
  // nvmlPciInfo_t, the layout of nvmlDeviceGetPciInfo_v3 (unchanged since NVML 2.285).
  struct PciInfo {
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
  };
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*count)(unsigned*) = nullptr;                            // nvmlDeviceGetCount_v2
  NvmlReturn (*handle_by_index)(unsigned, NvmlDevice*) = nullptr;      // ..._v2
  NvmlReturn (*name)(NvmlDevice, char*, unsigned) = nullptr;           // nvmlDeviceGetName
  NvmlReturn (*uuid)(NvmlDevice, char*, unsigned) = nullptr;           // nvmlDeviceGetUUID
  NvmlReturn (*pci)(NvmlDevice, PciInfo*) = nullptr;                   // nvmlDeviceGetPciInfo_v3
  NvmlReturn (*mig_mode)(NvmlDevice, unsigned*, unsigned*) = nullptr;  // optional: NVML 11+
  const char* (*error_string)(NvmlReturn) = nullptr;
  if (!load(lib, "nvmlInit_v2", init) || !load(lib, "nvmlDeviceGetCount_v2", count) ||
      !load(lib, "nvmlDeviceGetHandleByIndex_v2", handle_by_index) ||
      !load(lib, "nvmlDeviceGetName", name) || !load(lib, "nvmlDeviceGetUUID", uuid) ||
      !load(lib, "nvmlDeviceGetPciInfo_v3", pci) || !load(lib, "nvmlErrorString", error_string)) {
    why_not = "NVML lacks a function the listing needs (a driver older than NVML 2.285?)";
    return std::nullopt;
  }
  load(lib, "nvmlDeviceGetMigMode", mig_mode);
  if (const NvmlReturn e = init(); e != kNvmlSuccess) {
    why_not = fmt::format("nvmlInit failed: {}", error_string(e));
    return std::nullopt;
  }
  unsigned n = 0;
  if (const NvmlReturn e = count(&n); e != kNvmlSuccess) {
    why_not = fmt::format("nvmlDeviceGetCount failed: {}", error_string(e));
    return std::nullopt;
  }
  std::vector<NvmlGpu> gpus;
  for (unsigned i = 0; i < n; ++i) {
    NvmlDevice device = nullptr;
    // A GPU this process may not open (a cgroup of a Slurm job) is not listed, as CUDA skips it.
    if (handle_by_index(i, &device) != kNvmlSuccess) continue;
    NvmlGpu g;
    char text[96] = {};
    PciInfo info{};
    if (name(device, text, sizeof text) != kNvmlSuccess) continue;
    g.name = text;
    if (uuid(device, text, sizeof text) != kNvmlSuccess) continue;
    g.uuid = text;
    if (pci(device, &info) != kNvmlSuccess) continue;
    g.domain = info.domain;
    g.bus = info.bus;
    g.device = info.device;
    unsigned current = 0, pending = 0;
    g.mig_enabled =
        mig_mode && mig_mode(device, &current, &pending) == kNvmlSuccess && current == 1;
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
