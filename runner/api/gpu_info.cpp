#include "runner/api/gpu_info.hpp"

namespace runner {

nlohmann::json GpuInfo::to_json() const {
  if (!present) return {{"present", false}, {"reason", absent_reason}};
  nlohmann::json j = {
      {"present", true},
      {"name", name},
      {"pci_bus_id", pci_bus_id},
      {"uuid", uuid},
      {"device", device},
      {"sm_count", sm_count},
      {"warp_size", warp_size},
      {"max_threads_per_sm", max_threads_per_sm},
      {"compute_capability", std::to_string(compute_major) + "." + std::to_string(compute_minor)},
      {"sm_clock_mhz", sm_clock_mhz},
      {"memory_clock_mhz", memory_clock_mhz},
      {"memory_bus_bits", memory_bus_bits},
      {"global_memory_bytes", global_memory_bytes},
      {"l2_bytes", l2_bytes},
      {"shared_memory_per_block_optin", shared_memory_per_block_optin},
      {"driver_version", driver_version},
      {"runtime_version", runtime_version}};
  if (!arch.empty()) {  // HIP builds only: CUDA manifests keep their keys
    j["arch"] = arch;
    j["runtime"] = "hip";
  }
  return j;
}

#if !defined(RUNNER_HAVE_CUDA) && !defined(RUNNER_HAVE_HIP)
VisibleGpus visible_gpus() {
  return {{}, "built without CUDA"};
}

const GpuInfo& gpu_info() {
  static const GpuInfo info = [] {
    GpuInfo g;
    g.absent_reason = "built without CUDA";
    return g;
  }();
  return info;
}
#endif

}  // namespace runner
