// The spinning kernel of LaunchGuard (runner/api/cuda/detail/launch_guard.hpp). Device code only;
// nothing here may include fmt or spdlog.
#include "runner/api/cuda/detail/launch_guard.hpp"
#include "runner/api/gpu/device_timer.hpp"

namespace runner::cuda {

namespace {

// One thread: spins on a flag in host memory (volatile: every iteration reads it again over the
// bus) until the host sets it or `timeout_ticks` of the device timer have passed.
__global__ void hold_stream(const volatile int* release, volatile int* timed_out,
                            unsigned long long timeout_ticks) {
  const unsigned long long start = gpu::device_timer_now();
  while (*release == 0) {
    if (gpu::device_timer_now() - start > timeout_ticks) {
      *timed_out = 1;
      return;
    }
  }
}

}  // namespace

void launch_guard_kernel(const volatile int* release, volatile int* timed_out,
                         unsigned long long timeout_ns, cudaStream_t stream) {
  hold_stream<<<1, 1, 0, stream>>>(release, timed_out, gpu::device_timer_ticks(timeout_ns));
}

}  // namespace runner::cuda
