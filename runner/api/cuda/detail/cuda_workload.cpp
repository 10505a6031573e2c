// CudaWorkload's record fields, built on the host side (GPU sources see nlohmann::json declared
// only: runner/api/json.hpp).
#include "runner/api/cuda/cuda_workload.hpp"
#include "runner/api/cuda/detail/event_clock.hpp"
#include "runner/api/cuda/detail/l2_flush.hpp"

namespace runner::cuda {

std::unique_ptr<SampleClock> CudaWorkload::make_clock() {
  return std::make_unique<EventClock>(stream_);
}

std::unique_ptr<SampleClock> CudaWorkload::make_sample_clock() {
  return std::make_unique<EventClock>(
      stream_, launch_guard_enabled() ? EventClock::Guard::launch_guard : EventClock::Guard::none);
}

MeasureMode CudaWorkload::prepare_sample(MeasureMode mode) {
  if (mode == MeasureMode::cold) flush_l2(stream_);
  return mode;
}

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
