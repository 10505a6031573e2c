#include "runner/cuda/cuda_check.hpp"
#include "runner/cuda/event_clock.hpp"

namespace runner::cuda {

EventClock::EventClock(cudaStream_t stream) : stream_(stream) {
  RUNNER_CUDA_CHECK(cudaEventCreate(&start_));
  RUNNER_CUDA_CHECK(cudaEventCreate(&stop_));
}

EventClock::~EventClock() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

void EventClock::start() { RUNNER_CUDA_CHECK(cudaEventRecord(start_, stream_)); }

double EventClock::stop_ms() {
  RUNNER_CUDA_CHECK(cudaEventRecord(stop_, stream_));
  RUNNER_CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0;
  RUNNER_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

}  // namespace runner::cuda
