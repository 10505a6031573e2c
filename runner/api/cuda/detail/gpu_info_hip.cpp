// gpu_info() of a HIP build: the AMD GPU or DCU points run on (device 0, or the first that
// HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES leaves). The CUDA build's is gpu_info.cpp here.
#include <string>

#include "runner/api/gpu/runtime.hpp"
#include "runner/api/gpu_info.hpp"

namespace runner {

namespace {

std::string absent_reason(hipError_t e) {
  if (e == hipSuccess || e == hipErrorNoDevice) return "no HIP device found";
  if (e == hipErrorInsufficientDriver)
    return "no ROCm driver (amdgpu/KFD) on this machine, or one older than HIP";
  return std::string("no HIP device: ") + hipGetErrorString(e);
}

GpuInfo describe(int device) {
  GpuInfo g;
  hipDeviceProp_t p{};
  if (hipGetDeviceProperties(&p, device) != hipSuccess) {
    g.absent_reason = "hipGetDeviceProperties failed";
    return g;
  }
  g.present = true;
  g.device = device;
  // The marketing name alone does not say which ISA the code runs as (DCUs often report a
  // generic name): records carry both, "name (gcnArchName)".
  g.arch = p.gcnArchName;
  g.name = g.arch.empty() ? std::string(p.name) : std::string(p.name) + " (" + g.arch + ")";
  char bus_id[32] = {};
  if (hipDeviceGetPCIBusId(bus_id, sizeof bus_id, device) == hipSuccess) g.pci_bus_id = bus_id;
  // No UUID query in every HIP release the build supports: the bus id names the device.
  g.uuid = g.pci_bus_id.empty() ? std::string() : "PCI-" + g.pci_bus_id;
  g.sm_count = p.multiProcessorCount;  // compute units
  g.warp_size = p.warpSize;            // 64: a wavefront
  g.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  g.compute_major = p.major;
  g.compute_minor = p.minor;
  g.sm_clock_mhz = p.clockRate / 1000;
  g.memory_clock_mhz = p.memoryClockRate / 1000;
  g.memory_bus_bits = p.memoryBusWidth;
  g.global_memory_bytes = static_cast<std::int64_t>(p.totalGlobalMem);
  g.l2_bytes = p.l2CacheSize;
  // No opt-in on AMD: a block may use the whole LDS.
  g.shared_memory_per_block_optin = static_cast<std::int64_t>(p.sharedMemPerBlock);
  (void)hipDriverGetVersion(&g.driver_version);
  (void)hipRuntimeGetVersion(&g.runtime_version);
  return g;
}

}  // namespace

const GpuInfo& gpu_info() {
  static const GpuInfo info = [] {
    GpuInfo g;
    int count = 0;
    const hipError_t e = hipGetDeviceCount(&count);
    if (e != hipSuccess || count == 0) {
      g.absent_reason = absent_reason(e);
      (void)hipGetLastError();
      return g;
    }
    return describe(0);
  }();
  return info;
}

VisibleGpus visible_gpus() {
  VisibleGpus v;
  int count = 0;
  const hipError_t e = hipGetDeviceCount(&count);
  if (e != hipSuccess || count == 0) {
    v.absent_reason = absent_reason(e);
    (void)hipGetLastError();
    return v;
  }
  for (int d = 0; d < count; ++d) v.gpus.push_back(describe(d));
  return v;
}

}  // namespace runner
