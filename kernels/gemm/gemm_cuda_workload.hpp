#pragma once
// Base of the CUDA GEMM workloads: A and B copied to the device once (timed into h2d_ms), C on the
// device poisoned before every run, and verification that copies C back (timed into d2h_ms) and
// compares it with the double reference. Variants add only their launch.
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
        c_(static_cast<std::size_t>(p_.m * p_.n)),
        host_c_(c_.size()) {
    h2d_ms_ = time_copy([&] {
      a_.copy_from_host(p_.a.span(), stream());
      b_.copy_from_host(p_.b.span(), stream());
    });
  }

  void poison_output() override { c_.poison(stream()); }

  Verification verify() override {
    d2h_ms_ = time_copy([&] { c_.copy_to_host(host_c_.span(), stream()); });
    synchronize();
    return compare_with_reference<T>(host_c_.span(), p_.reference, tolerance_);
  }

 protected:
  std::int64_t m() const { return p_.m; }
  std::int64_t n() const { return p_.n; }
  std::int64_t k() const { return p_.k; }

  std::shared_ptr<const Problem> problem_;  // keeps the host inputs and the reference alive
  const GemmProblem<T>& p_;
  double tolerance_;
  cuda::DeviceBuffer<T> a_, b_, c_;
  HostArray<T> host_c_;  // C copied back for verification
};

}  // namespace runner::kernels::gemm
