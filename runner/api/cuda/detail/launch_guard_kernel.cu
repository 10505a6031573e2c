// The spinning kernel of LaunchGuard (runner/api/cuda/detail/launch_guard.hpp). Device code only;
// nothing here may include fmt or spdlog.
#include "runner/api/cuda/detail/launch_guard.hpp"

namespace runner::cuda {

namespace {

__device__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One thread: spins on a flag in host memory (volatile: every iteration reads it again over the
// bus) until the host sets it or `timeout_ns` of GPU time have passed.
__global__ void hold_stream(const volatile int* release, volatile int* timed_out,
                            unsigned long long timeout_ns) {
  const unsigned long long start = global_timer_ns();
  while (*release == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
  }
}

}  // namespace

void launch_guard_kernel(const volatile int* release, volatile int* timed_out,
                         unsigned long long timeout_ns, cudaStream_t stream) {
  hold_stream<<<1, 1, 0, stream>>>(release, timed_out, timeout_ns);
}

}  // namespace runner::cuda
