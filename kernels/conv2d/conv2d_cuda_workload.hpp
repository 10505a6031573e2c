#pragma once
// Base of the CUDA conv2d workloads: the image generated on the device in the point's own buffer
// (timed into inputs_ms), the output poisoned before every run, and verification against the
// double reference on the device (conv2d_device_reference.hpp, once per problem; where the device
// has no room for it, the output is copied back and compared with the host reference) at the
// float tolerance of a ks²-term sum. The variants add their filter upload (into their own constant
// memory or descriptor) and their launch. Plain C++: host .cpp files use it.
#include <climits>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "kernels/common/random_fill_device.hpp"
#include "kernels/conv2d/conv2d_device_reference.hpp"
#include "kernels/conv2d/conv2d_problem.hpp"
#include "runner/api/cuda/cuda_workload.hpp"
#include "runner/api/cuda/device_buffer.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/verification.hpp"

namespace runner::kernels::conv2d {

class CudaConv2dBase : public cuda::CudaWorkload {
 public:
  // `kernel`, `block` and `shared_bytes`: what run() launches, checked before anything is
  // allocated (kernel null: no hand-written launch to check, e.g. a library call).
  CudaConv2dBase(const Point& point, std::shared_ptr<const Problem> problem, const void* kernel,
                 const BlockShape& block, std::size_t shared_bytes)
      : problem_(std::move(problem)),
        p_(static_cast<const Conv2dProblem<float>&>(*problem_)),
        tolerance_(tolerance_for(Dtype::f32, Precision::native, reduction_length(point))) {
    if (p_.m > INT_MAX || p_.n > INT_MAX)
      throw PointInvalid("the CUDA conv2d variants index rows and columns with int: at most " +
                         std::to_string(INT_MAX) + " per side");
    if (kernel) cuda::require_launchable(block, shared_bytes, kernel);
    in_ = cuda::DeviceBuffer<float>(static_cast<std::size_t>(p_.m * p_.n));
    out_ = cuda::DeviceBuffer<float>(static_cast<std::size_t>(p_.m * p_.n));
    inputs_ms_ = time_on_stream(
        [&] { fill_uniform_on_device<float>(in_.data(), in_.size(), p_.seed, 0, stream()); });
  }

  void poison_output() override { out_.poison(stream()); }

  Verification verify() override {
    return verify_output<double>(
        out_, problem_,
        [this](double* ref, cudaStream_t s) { return compute_reference_on_device(p_, ref, s); },
        [this] { return std::span<const double>(p_.host().reference); }, tolerance_, "gpu-double");
  }

 protected:
  int m() const { return static_cast<int>(p_.m); }
  int n() const { return static_cast<int>(p_.n); }

  std::shared_ptr<const Problem> problem_;  // keeps the problem (and its reference) alive
  const Conv2dProblem<float>& p_;
  double tolerance_;
  cuda::DeviceBuffer<float> in_, out_;
};

}  // namespace runner::kernels::conv2d
