#pragma once
// Keeps a stream from starting a timed region before the host has enqueued all of it, as nvbench
// does. Without it the GPU runs each launch as soon as it is enqueued: a kernel shorter than the
// host's launch overhead then leaves the GPU idle between the launches of a hot batch (the gaps
// are timed), and the start event of any region may fire while the host is still busy.
//
//   guard.hold(stream);   // a one-thread kernel that spins until released (or times out)
//   cudaEventRecord(start, stream); launches...; cudaEventRecord(stop, stream);
//   guard.release();      // the host sets a flag in mapped host memory; the spin ends
//
// The flag lives in pinned, mapped host memory, which the spinning kernel reads over the bus; the
// kernel gives up after a timeout measured by the GPU's %globaltimer, so that a host which never
// releases it (an exception, or a launch that itself waits for the stream) cannot hang the point.
// Safe to include in .cu files.
#include "runner/api/gpu/runtime.hpp"

namespace runner::cuda {

// Seconds the guard kernel waits for release() before it lets the stream go on.
constexpr double kLaunchGuardTimeoutSeconds = 1.0;

// False when RUNNER_LAUNCH_GUARD=off (or 0), or once a guard has timed out in this process: tools
// that run every launch to completion before it returns to the host (Nsight Compute, possibly
// compute-sanitizer) leave a guard nothing to do but wait out its timeout, so the first timeout
// turns guarding off for the rest of the process (1 s lost once, and counted in the record).
bool launch_guard_enabled();
void disable_launch_guard();

// Enqueues the spinning kernel (runner/api/cuda/detail/launch_guard_kernel.cu). `release` and
// `timed_out` are device pointers of mapped host memory.
void launch_guard_kernel(const volatile int* release, volatile int* timed_out,
                         unsigned long long timeout_ns, cudaStream_t stream);

class LaunchGuard {
 public:
  LaunchGuard();
  ~LaunchGuard();
  LaunchGuard(const LaunchGuard&) = delete;
  LaunchGuard& operator=(const LaunchGuard&) = delete;

  // Enqueues the spinning kernel on `stream`; the next work on it waits for release().
  void hold(cudaStream_t stream);
  // Lets the stream go on. Harmless when nothing is held.
  void release();
  bool held() const { return held_; }
  // After the stream has passed the guard (an event after it has completed): whether the kernel
  // stopped waiting because of its timeout rather than release().
  bool timed_out() const;

 private:
  volatile int* host_flags_ = nullptr;  // [0] release, [1] timed out
  int* device_flags_ = nullptr;
  bool held_ = false;
};

}  // namespace runner::cuda
