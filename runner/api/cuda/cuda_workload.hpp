#pragma once
// Base of every CUDA workload: one stream per point, an event clock on it, and the launch-shape
// checks that turn impossible block shapes into `invalid` points instead of launch failures.
#include <cuda_runtime.h>

#include <memory>
#include <span>
#include <vector>

#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/cuda/detail/event_clock.hpp"
#include "runner/api/cuda/detail/l2_flush.hpp"
#include "runner/api/cuda/device_buffer.hpp"
#include "runner/api/cuda/device_verification.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/point.hpp"
#include "runner/api/workload.hpp"

namespace runner::cuda {

// Throws PointInvalid when the device cannot launch `kernel` with this block shape and this much
// dynamic shared memory (and raises the kernel's shared-memory limit above 48 KiB when it can).
void require_launchable(const BlockShape& block, std::size_t shared_bytes, const void* kernel);

class CudaWorkload : public Workload {
 public:
  CudaWorkload() { RUNNER_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~CudaWorkload() override {
    if (stream_) {
      cudaStreamSynchronize(stream_);
      cudaStreamDestroy(stream_);
    }
  }
  std::unique_ptr<SampleClock> make_clock() override { return std::make_unique<EventClock>(stream_); }
  std::unique_ptr<SampleClock> make_sample_clock() override {
    return std::make_unique<EventClock>(
        stream_, launch_guard_enabled() ? EventClock::Guard::launch_guard : EventClock::Guard::none);
  }
  // Cold: the L2 flushed on the stream, after the poisoning (which would otherwise leave the
  // output in the L2) and before the clock starts.
  MeasureMode prepare_sample(MeasureMode mode) override {
    if (mode == MeasureMode::cold) flush_l2(stream_);
    return mode;
  }
  nlohmann::json extra_fields() const override { return {{"h2d_ms", h2d_ms_}, {"d2h_ms", d2h_ms_}}; }

 protected:
  cudaStream_t stream() const { return stream_; }
  void synchronize() const { RUNNER_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

  // Times a host↔device copy (events on the stream) so it is recorded apart from kernel time.
  template <typename Fn>
  double time_copy(Fn&& copy) {
    EventClock clock(stream_);
    clock.start();
    copy();
    return clock.stop_ms();
  }

  // Fills `buffer` with array `slot` of `problem`, `host` (its host copy): from the worker's device
  // copy of it (runner/api/cuda/device_verification.hpp), a device→device copy, when the device
  // has room for one; else from the host.
  template <typename T>
  void upload(DeviceBuffer<T>& buffer, const std::shared_ptr<const Problem>& problem, int slot,
              std::span<const T> host) {
    if (const T* on_device = problem_array_on_device(problem, slot, host, stream_))
      buffer.copy_from_device(on_device, stream_);
    else
      buffer.copy_from_host(host, stream_);
  }

  // Compares `out` with the problem's double reference: on the device where the reference fits
  // there (then nothing is copied back and d2h_ms stays 0), else by copying the output back
  // (timed into d2h_ms) and comparing on the host.
  template <typename T>
  Verification verify_output(const DeviceBuffer<T>& out,
                             const std::shared_ptr<const Problem>& problem,
                             std::span<const double> reference, double tolerance) {
    if (const double* ref = problem_array_on_device(problem, kReferenceSlot, reference, stream_)) {
      d2h_ms_ = 0;
      return compare_on_device<T, double>(out.data(), ref, out.size(), tolerance, stream_);
    }
    return verify_on_host(out, reference, tolerance);
  }

  // The host path: `out` copied back (timed into d2h_ms) and compared with `reference` there.
  template <typename T>
  Verification verify_on_host(const DeviceBuffer<T>& out, std::span<const double> reference,
                              double tolerance) {
    std::vector<T> host(out.size());
    d2h_ms_ = time_copy([&] { out.copy_to_host(std::span<T>(host), stream_); });
    synchronize();
    return compare_with_reference<T>(std::span<const T>(host), reference, tolerance);
  }

  double h2d_ms_ = 0, d2h_ms_ = 0;

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace runner::cuda
