#pragma once
#include "runner/api/gpu/runtime.hpp"

#include <memory>
#include <optional>

#include "runner/api/cuda/detail/launch_guard.hpp"
#include "runner/api/workload.hpp"

namespace runner::cuda {

// Times the work enqueued on a stream between start() and stop_ms() with CUDA events: device
// time only, never host launch overhead or copies outside the pair. A guarded clock holds the
// stream from start() until stop_ms() has enqueued its event
// (runner/api/cuda/detail/launch_guard.hpp), so that the timed region runs as one piece however
// long the host takes to enqueue it.
class EventClock final : public SampleClock {
 public:
  enum class Guard { none, launch_guard };
  explicit EventClock(cudaStream_t stream, Guard guard = Guard::none);
  ~EventClock() override;
  void start() override;
  double stop_ms() override;
  // Samples whose guard gave up waiting (null for an unguarded clock).
  std::optional<int> guard_timeouts() const override;

 private:
  cudaStream_t stream_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  std::unique_ptr<LaunchGuard> guard_;
  int guard_timeouts_ = 0;
};

}  // namespace runner::cuda
