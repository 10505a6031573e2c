#pragma once
// Base of the CUDA GEMM workloads: A and B generated on the device in the point's own buffers
// (timed into inputs_ms), C poisoned before every run, and verification against the double
// reference on the device: cuBLAS DGEMM, once per problem (gemm_device_reference.hpp). Where the
// device has no room for the reference, C is copied back and compared with the host reference.
// Variants add only their launch.
#include <cstdint>
#include <memory>
#include <utility>

#include "kernels/common/random_fill_device.hpp"
#include "kernels/gemm/gemm_device_reference.hpp"
#include "kernels/gemm/gemm_problem.hpp"
#include "runner/api/cuda/cuda_workload.hpp"
#include "runner/api/cuda/device_buffer.hpp"
#include "runner/api/verification.hpp"

namespace runner::kernels::gemm {

template <typename T>
class CudaGemm : public cuda::CudaWorkload {
 public:
  // `precision`: the arithmetic the variant performs (Precision::tf32 for TF32 tensor cores), which
  // sets the verification tolerance; it should match the variant's registered
  // VariantInfo::precision.
  CudaGemm(const Point& point, std::shared_ptr<const Problem> problem,
           Precision precision = Precision::native)
      : problem_(std::move(problem)),
        p_(static_cast<const GemmProblem<T>&>(*problem_)),
        tolerance_(tolerance_for(point.dtype.value_or(Dtype::f32), precision, p_.k)),
        a_(static_cast<std::size_t>(p_.m * p_.k)),
        b_(static_cast<std::size_t>(p_.k * p_.n)),
        c_(static_cast<std::size_t>(p_.m * p_.n)) {
    inputs_ms_ = time_on_stream([&] {
      fill_uniform_on_device<T>(a_.data(), a_.size(), p_.seed, 0, stream());
      fill_uniform_on_device<T>(b_.data(), b_.size(), p_.seed, 1, stream());
    });
  }

  void poison_output() override { c_.poison(stream()); }

  Verification verify() override {
    return verify_output<double>(
        c_, problem_,
        [this](double* c, cudaStream_t s) { return compute_reference_on_device(p_, c, s); },
        [this] { return std::span<const double>(p_.host().reference); }, tolerance_, "gpu-double");
  }

 protected:
  std::int64_t m() const { return p_.m; }
  std::int64_t n() const { return p_.n; }
  std::int64_t k() const { return p_.k; }

  std::shared_ptr<const Problem> problem_;  // keeps the problem (and its reference) alive
  const GemmProblem<T>& p_;
  double tolerance_;
  cuda::DeviceBuffer<T> a_, b_, c_;
};

}  // namespace runner::kernels::gemm
