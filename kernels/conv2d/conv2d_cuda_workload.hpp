#pragma once
// Base of the conv2d workloads with a fixed launch shape (shared_reg, cudnn): the image copied to
// the device once (timed into h2d_ms), the output poisoned on the device before every run, and
// verification that copies the output back (timed into d2h_ms) and compares it with the double
// reference at the float tolerance of a ks²-term sum. The variants add their filter upload (into
// their own constant memory or descriptor) and their launch. Plain C++: host .cpp files use it.
#include <climits>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "kernels/common/host_array.hpp"
#include "kernels/conv2d/conv2d_problem.hpp"
#include "runner/api/cuda/cuda_workload.hpp"
#include "runner/api/cuda/device_buffer.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/verification.hpp"

namespace runner::kernels::conv2d {

class CudaConv2dFixed : public cuda::CudaWorkload {
 public:
  // `kernel`, `block` and `shared_bytes`: what run() launches, checked before anything is
  // allocated (kernel null: no hand-written launch to check, e.g. a library call).
  CudaConv2dFixed(const Point& point, std::shared_ptr<const Problem> problem, const void* kernel,
                  const BlockShape& block, std::size_t shared_bytes)
      : problem_(std::move(problem)),
        p_(static_cast<const Conv2dProblem<float>&>(*problem_)),
        tolerance_(tolerance_for(Dtype::f32, Precision::native, reduction_length(point))) {
    if (p_.m > INT_MAX || p_.n > INT_MAX)
      throw PointInvalid("this conv2d variant indexes rows and columns with int: at most " +
                         std::to_string(INT_MAX) + " per side");
    if (kernel) cuda::require_launchable(block, shared_bytes, kernel);
    in_ = cuda::DeviceBuffer<float>(p_.input.size());
    out_ = cuda::DeviceBuffer<float>(p_.input.size());
    host_out_ = HostArray<float>(p_.input.size());
    h2d_ms_ = time_copy([&] { in_.copy_from_host(p_.input.span(), stream()); });
  }

  void poison_output() override { out_.poison(stream()); }

  Verification verify() override {
    d2h_ms_ = time_copy([&] { out_.copy_to_host(host_out_.span(), stream()); });
    synchronize();
    return compare_with_reference<float>(host_out_.span(), p_.reference, tolerance_);
  }

 protected:
  int m() const { return static_cast<int>(p_.m); }
  int n() const { return static_cast<int>(p_.n); }

  std::shared_ptr<const Problem> problem_;  // keeps the inputs and the reference alive
  const Conv2dProblem<float>& p_;
  double tolerance_;
  cuda::DeviceBuffer<float> in_, out_;
  HostArray<float> host_out_;
};

}  // namespace runner::kernels::conv2d
