#include "runner/api/cuda/detail/event_clock.hpp"

#include "runner/api/cuda/cuda_check.hpp"

namespace runner::cuda {

EventClock::EventClock(cudaStream_t stream, Guard guard) : stream_(stream) {
  RUNNER_CUDA_CHECK(cudaEventCreate(&start_));
  RUNNER_CUDA_CHECK(cudaEventCreate(&stop_));
  if (guard == Guard::launch_guard) guard_ = std::make_unique<LaunchGuard>();
}

EventClock::~EventClock() {
  guard_.reset();  // releases a stream still held
  (void)cudaEventDestroy(start_);
  (void)cudaEventDestroy(stop_);
}

void EventClock::start() {
  if (guard_ && launch_guard_enabled()) guard_->hold(stream_);
  RUNNER_CUDA_CHECK(cudaEventRecord(start_, stream_));
}

double EventClock::stop_ms() {
  RUNNER_CUDA_CHECK(cudaEventRecord(stop_, stream_));
  const bool guarded = guard_ && guard_->held();
  if (guarded) guard_->release();
  RUNNER_CUDA_CHECK(cudaEventSynchronize(stop_));
  if (guarded && guard_->timed_out()) {
    ++guard_timeouts_;
    disable_launch_guard();
  }
  float ms = 0;
  RUNNER_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

std::optional<int> EventClock::guard_timeouts() const {
  if (!guard_) return std::nullopt;
  return guard_timeouts_;
}

}  // namespace runner::cuda
