#pragma once
// Base of the CUDA GEMM workloads: A and B put on the device once per point (timed into h2d_ms;
// from the worker's device copy of the problem after its first point), C on the device poisoned
// before every run, and verification against the double reference on the device (or, where the
// device has no room for the reference, C copied back and compared on the host). Variants add
// only their launch.
#include <cstdint>
#include <memory>
#include <utility>

#include "kernels/common/host_array.hpp"
#include "kernels/gemm/gemm_problem.hpp"
#include "runner/api/cuda/cuda_workload.hpp"
#include "runner/api/cuda/device_buffer.hpp"
#include "runner/api/verification.hpp"

namespace runner::kernels::gemm {

template <typename T>
class CudaGemm : public cuda::CudaWorkload {
 public:
  // `precision`: the arithmetic the variant performs (Precision::tf32 for TF32 tensor cores), which
  // sets the verification tolerance; it should match the variant's registered VariantInfo::precision.
  CudaGemm(const Point& point, std::shared_ptr<const Problem> problem,
           Precision precision = Precision::native)
      : problem_(std::move(problem)),
        p_(static_cast<const GemmProblem<T>&>(*problem_)),
        tolerance_(tolerance_for(point.dtype.value_or(Dtype::f32), precision, p_.k)),
        a_(p_.a.size()),
        b_(p_.b.size()),
        c_(static_cast<std::size_t>(p_.m * p_.n)) {
    h2d_ms_ = time_copy([&] {
      upload(a_, problem_, 0, p_.a.span());
      upload(b_, problem_, 1, p_.b.span());
    });
  }

  void poison_output() override { c_.poison(stream()); }

  Verification verify() override { return verify_output(c_, problem_, p_.reference, tolerance_); }

 protected:
  std::int64_t m() const { return p_.m; }
  std::int64_t n() const { return p_.n; }
  std::int64_t k() const { return p_.k; }

  std::shared_ptr<const Problem> problem_;  // keeps the host inputs and the reference alive
  const GemmProblem<T>& p_;
  double tolerance_;
  cuda::DeviceBuffer<T> a_, b_, c_;
};

}  // namespace runner::kernels::gemm
