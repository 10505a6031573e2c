#pragma once
// Base of every CUDA workload: one stream per point, an event clock on it, and the launch-shape
// checks that turn impossible block shapes into `invalid` points instead of launch failures.
#include "runner/api/gpu/runtime.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/cuda/device_buffer.hpp"
#include "runner/api/cuda/device_verification.hpp"
#include "runner/api/cuda/problem_arrays.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/gpu_info.hpp"
#include "runner/api/launch_waves.hpp"
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
      (void)cudaStreamSynchronize(stream_);
      (void)cudaStreamDestroy(stream_);
    }
  }
  // CUDA events on the point's stream; a sample's clock holds the stream behind the launch guard
  // while the host enqueues (runner/api/cuda/detail/event_clock.hpp).
  std::unique_ptr<SampleClock> make_clock() override;
  std::unique_ptr<SampleClock> make_sample_clock() override;
  // Cold: the L2 flushed on the stream, after the poisoning (which would otherwise leave the
  // output in the L2) and before the clock starts.
  MeasureMode prepare_sample(MeasureMode mode) override;
  // inputs_ms, h2d_ms, d2h_ms, reference and the launch's columns
  // (runner/api/cuda/detail/cuda_workload.cpp).
  nlohmann::json extra_fields() const override;

 protected:
  cudaStream_t stream() const { return stream_; }
  void synchronize() const { RUNNER_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

  // Times work enqueued on the stream (events), so that set-up such as filling the inputs or a
  // copy is recorded apart from kernel time.
  template <typename Fn>
  double time_on_stream(Fn&& work) {
    const auto clock = make_clock();
    clock->start();
    work();
    return clock->stop_ms();
  }

  // Compares `out` with the problem's reference. Where the device has room, the reference (of
  // element type R: double, or T where the output must equal it exactly) is built there by
  // `build_on_device(R* device, cudaStream_t) -> bool` once per problem
  // (runner/api/cuda/problem_arrays.hpp) and the output compared with it there: nothing is copied
  // back, and the record's `reference` says `device_reference`. Else the output is copied back
  // (timed into d2h_ms) and compared on the host with `host_reference()`, the problem's host side,
  // built on first use (`reference`: cpu-double).
  template <typename R, typename T, typename Build, typename HostReference>
  Verification verify_output(const DeviceBuffer<T>& out,
                             const std::shared_ptr<const Problem>& problem, Build&& build_on_device,
                             HostReference&& host_reference, double tolerance,
                             const char* device_reference) {
    if (const R* ref = problem_array_on_device<R>(problem, kReferenceSlot, out.size(),
                                                  std::forward<Build>(build_on_device), stream_)) {
      d2h_ms_ = 0;
      reference_ = device_reference;
      return compare_on_device<T, R>(out.data(), ref, out.size(), tolerance, stream_);
    }
    reference_ = "cpu-double";
    return verify_on_host(out, host_reference(), tolerance);
  }

  // The host path: `out` copied back (timed into d2h_ms) and compared with `reference` there.
  template <typename T>
  Verification verify_on_host(const DeviceBuffer<T>& out, std::span<const double> reference,
                              double tolerance) {
    std::vector<T> host(out.size());
    d2h_ms_ = time_on_stream([&] { out.copy_to_host(std::span<T>(host), stream_); });
    synchronize();
    return compare_with_reference<T>(std::span<const T>(host), reference, tolerance);
  }

  // The launch of the kernel a sample times, noted by the variant at its launch: the record's
  // grid_blocks, block_threads and the warps behind a GPU point's efficiency
  // (runner/api/launch_waves.hpp). Library calls (cuBLAS, cuDNN) note none, and get none.
  void note_launch(dim3 grid, dim3 block) {
    launch_blocks_ = std::int64_t{grid.x} * grid.y * grid.z;
    launch_threads_ = std::int64_t{block.x} * block.y * block.z;
  }

  // Set-up figures of the record (never part of time_ms_*): generating the inputs in the point's
  // buffers, copies from and to the host.
  double inputs_ms_ = 0, h2d_ms_ = 0, d2h_ms_ = 0;
  std::string reference_ = "cpu-double";                 // what verify() compared the output with
  std::int64_t launch_blocks_ = 0, launch_threads_ = 0;  // note_launch

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace runner::cuda
