// CudaWorkload's record fields, built on the host side (GPU sources see nlohmann::json declared
// only: runner/api/json.hpp).
#include "runner/api/cuda/cuda_workload.hpp"

namespace runner::cuda {

nlohmann::json CudaWorkload::extra_fields() const {
  nlohmann::json fields = {{"inputs_ms", inputs_ms_},
                           {"h2d_ms", h2d_ms_},
                           {"d2h_ms", d2h_ms_},
                           {"reference", reference_}};
  if (launch_blocks_ > 0) {
    const GpuInfo& g = gpu_info();
    fields.update(launch_fields(launch_blocks_, launch_threads_,
                                launch_waves(launch_blocks_, launch_threads_, g.warp_size,
                                             g.sm_count, g.max_threads_per_sm)));
  }
  return fields;
}

}  // namespace runner::cuda
