#include "runner/api/gpu/runtime.hpp"

#include "runner/api/gpu_info.hpp"

namespace runner {

namespace {

std::string absent_reason(cudaError_t e) {
  if (e == cudaSuccess || e == cudaErrorNoDevice) return "no CUDA device found";
  if (e == cudaErrorInsufficientDriver)
    return "no CUDA driver on this machine (or one older than the runtime)";
  return cudaGetErrorString(e);
}

// "GPU-8-4-4-4-12" hex digits of the device's UUID, as nvidia-smi and CUDA_VISIBLE_DEVICES write
// it.
std::string uuid_text(const cudaUUID_t& uuid) {
  static const char* hex = "0123456789abcdef";
  std::string s = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    const auto byte = static_cast<unsigned char>(uuid.bytes[i]);
    s += hex[byte >> 4];
    s += hex[byte & 15];
  }
  return s;
}

GpuInfo describe(int device) {
  GpuInfo g;
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, device) != cudaSuccess) {
    g.absent_reason = "cudaGetDeviceProperties failed";
    return g;
  }
  g.present = true;
  g.device = device;
  g.name = p.name;
  char bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) == cudaSuccess) g.pci_bus_id = bus_id;
  g.uuid = uuid_text(p.uuid);
  g.sm_count = p.multiProcessorCount;
  g.warp_size = p.warpSize;
  g.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  g.compute_major = p.major;
  g.compute_minor = p.minor;
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device) == cudaSuccess)
    g.sm_clock_mhz = khz / 1000;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device) == cudaSuccess)
    g.memory_clock_mhz = khz / 1000;
  g.memory_bus_bits = p.memoryBusWidth;
  g.global_memory_bytes = static_cast<std::int64_t>(p.totalGlobalMem);
  g.l2_bytes = p.l2CacheSize;
  g.shared_memory_per_block_optin = static_cast<std::int64_t>(p.sharedMemPerBlockOptin);
  cudaDriverGetVersion(&g.driver_version);
  cudaRuntimeGetVersion(&g.runtime_version);
  return g;
}

}  // namespace

const GpuInfo& gpu_info() {
  static const GpuInfo info = [] {
    GpuInfo g;
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      g.absent_reason = absent_reason(e);
      cudaGetLastError();
      return g;
    }
    return describe(0);
  }();
  return info;
}

VisibleGpus visible_gpus() {
  VisibleGpus v;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    v.absent_reason = absent_reason(e);
    cudaGetLastError();
    return v;
  }
  for (int d = 0; d < count; ++d) v.gpus.push_back(describe(d));
  return v;
}

}  // namespace runner
