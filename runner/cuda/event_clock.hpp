#pragma once
#include <cuda_runtime.h>

#include "runner/workload.hpp"

namespace runner::cuda {

// Times the work enqueued on a stream between start() and stop_ms() with CUDA events: device
// time only, never host launch overhead or copies outside the pair.
class EventClock final : public SampleClock {
 public:
  explicit EventClock(cudaStream_t stream);
  ~EventClock() override;
  void start() override;
  double stop_ms() override;

 private:
  cudaStream_t stream_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace runner::cuda
