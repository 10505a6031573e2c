#pragma once
// Base of the conv2d workloads with a fixed launch shape (shared_reg, cudnn): the image put on the
// device once per point (timed into h2d_ms; from the worker's device copy of the problem after its
// first point), the output poisoned on the device before every run, and verification against the
// double reference on the device (or copied back, where the reference does not fit there) at the
// float tolerance of a ks²-term sum. The variants add their filter upload (into
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
    h2d_ms_ = time_copy([&] { upload(in_, problem_, 0, p_.input.span()); });
  }

  void poison_output() override { out_.poison(stream()); }

  Verification verify() override { return verify_output(out_, problem_, p_.reference, tolerance_); }

 protected:
  int m() const { return static_cast<int>(p_.m); }
  int n() const { return static_cast<int>(p_.n); }

  std::shared_ptr<const Problem> problem_;  // keeps the inputs and the reference alive
  const Conv2dProblem<float>& p_;
  double tolerance_;
  cuda::DeviceBuffer<float> in_, out_;
};

}  // namespace runner::kernels::conv2d
