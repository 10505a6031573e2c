#include "runner/api/cuda/detail/launch_guard.hpp"

#include <atomic>
#include <cstdlib>
#include <string_view>

#include "runner/api/cuda/cuda_check.hpp"

namespace runner::cuda {

namespace {
bool& guard_enabled() {
  static bool enabled = [] {
    const char* v = std::getenv("RUNNER_LAUNCH_GUARD");
    return !(v && (std::string_view(v) == "off" || std::string_view(v) == "0"));
  }();
  return enabled;
}
}  // namespace

bool launch_guard_enabled() {
  return guard_enabled();
}
void disable_launch_guard() {
  guard_enabled() = false;
}

LaunchGuard::LaunchGuard() {
  void* host = nullptr;
  RUNNER_CUDA_CHECK(cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped));
  host_flags_ = static_cast<volatile int*>(host);
  host_flags_[0] = 0;
  host_flags_[1] = 0;
  void* device = nullptr;
  RUNNER_CUDA_CHECK(cudaHostGetDevicePointer(&device, host, 0));
  device_flags_ = static_cast<int*>(device);
}

LaunchGuard::~LaunchGuard() {
  // A guard still held (an exception between hold and release) must not leave its kernel waiting
  // for the timeout while the stream is destroyed.
  release();
  if (host_flags_) (void)cudaFreeHost(const_cast<int*>(host_flags_));
}

void LaunchGuard::hold(cudaStream_t stream) {
  // The previous kernel has ended: its stream passed the stop event that was synchronised.
  host_flags_[0] = 0;
  host_flags_[1] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const auto timeout_ns = static_cast<unsigned long long>(kLaunchGuardTimeoutSeconds * 1e9);
  launch_guard_kernel(device_flags_, device_flags_ + 1, timeout_ns, stream);
  RUNNER_CUDA_CHECK_LAUNCH();
  held_ = true;
}

void LaunchGuard::release() {
  if (!held_) return;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  host_flags_[0] = 1;
  held_ = false;
}

bool LaunchGuard::timed_out() const {
  return host_flags_[1] != 0;
}

}  // namespace runner::cuda
