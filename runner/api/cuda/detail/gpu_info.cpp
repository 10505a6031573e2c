#include "runner/api/gpu/runtime.hpp"

#include "runner/api/gpu_info.hpp"

#include <cstdio>

namespace runner {

const GpuInfo& gpu_info() {
  static const GpuInfo info = [] {
    GpuInfo g;
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      if (e == cudaSuccess || e == cudaErrorNoDevice)
        g.absent_reason = "no CUDA device found";
      else if (e == cudaErrorInsufficientDriver)
        g.absent_reason = "no CUDA driver on this machine (or one older than the runtime)";
      else
        g.absent_reason = cudaGetErrorString(e);
      cudaGetLastError();
      return g;
    }
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
      g.absent_reason = "cudaGetDeviceProperties failed";
      return g;
    }
    g.present = true;
    g.device = 0;
    g.name = p.name;
    char bus_id[32] = {};
    if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, 0) == cudaSuccess) g.pci_bus_id = bus_id;
    // nvidia-smi's spelling: GPU-, then the 16 bytes as 8-4-4-4-12 hex digits.
    char uuid[64] = {};
    const auto* b = reinterpret_cast<const unsigned char*>(p.uuid.bytes);
    std::snprintf(uuid, sizeof uuid,
                  "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                  b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                  b[14], b[15]);
    g.uuid = uuid;
    g.sm_count = p.multiProcessorCount;
    g.warp_size = p.warpSize;
    g.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    g.compute_major = p.major;
    g.compute_minor = p.minor;
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0) == cudaSuccess)
      g.sm_clock_mhz = khz / 1000;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, 0) == cudaSuccess)
      g.memory_clock_mhz = khz / 1000;
    g.memory_bus_bits = p.memoryBusWidth;
    g.global_memory_bytes = static_cast<std::int64_t>(p.totalGlobalMem);
    g.l2_bytes = p.l2CacheSize;
    g.shared_memory_per_block_optin = static_cast<std::int64_t>(p.sharedMemPerBlockOptin);
    cudaDriverGetVersion(&g.driver_version);
    cudaRuntimeGetVersion(&g.runtime_version);
    return g;
  }();
  return info;
}

}  // namespace runner
