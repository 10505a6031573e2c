#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runner/api/json.hpp"

namespace runner {

// The GPU points run on (device 0, or the one CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES leaves
// first). On AMD (a HIP build) an "SM" is a compute unit and a warp a 64-thread wavefront.
struct GpuInfo {
  bool present = false;
  std::string absent_reason;  // "no CUDA device", "built without CUDA", a driver error ...
  std::string name;           // HIP builds: "name (gcnArchName)"
  std::string arch;           // HIP builds: gcnArchName, e.g. "gfx90a:sramecc+:xnack-"; CUDA: empty
  std::string pci_bus_id;     // "0000:41:00.0": how NVML finds the same device
  std::string uuid;  // "GPU-1b2c...": stable across processes, reboots and visibility lists
  int device = 0;
  int sm_count = 0;
  int warp_size = 0;           // threads of a warp (a wavefront on AMD)
  int max_threads_per_sm = 0;  // threads an SM holds at once: max_threads_per_sm / warp_size warps
  int compute_major = 0, compute_minor = 0;
  int sm_clock_mhz = 0, memory_clock_mhz = 0, memory_bus_bits = 0;
  std::int64_t global_memory_bytes = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t shared_memory_per_block_optin = 0;
  int driver_version = 0, runtime_version = 0;

  nlohmann::json to_json() const;
};

// Queries the device once per process (first call initialises the GPU runtime). In a build without
// a GPU runtime it reports absent with reason "built without CUDA".
const GpuInfo& gpu_info();

// Every GPU this process may use, in the runtime's order (what CUDA_VISIBLE_DEVICES or
// HIP_VISIBLE_DEVICES leaves): present, name, pci_bus_id and uuid each. Initialises the GPU
// runtime: call it in a process that will not fork workers (runner/measure/gpu_devices.hpp probes
// in a child). Empty, with the reason, when there is none or the build has no GPU runtime.
struct VisibleGpus {
  std::vector<GpuInfo> gpus;
  std::string absent_reason;
};
VisibleGpus visible_gpus();

}  // namespace runner
