#pragma once
#include <cstdint>
#include <string>

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
  std::string uuid;  // "GPU-8f6b3c1e-...", as nvidia-smi -L prints it: this board, whatever its
                     // slot (what its calibration is keyed by); empty where unknown
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

}  // namespace runner
