#pragma once
// The base of the CPU GEMM variants: C = A·B for row-major A (m×k), B (k×n), C (m×n), the output
// a host array compared with the problem's double reference (its host side).
#include <cstdint>
#include <memory>

#include "kernels/common/cpu_workload.hpp"
#include "kernels/gemm/gemm_problem.hpp"
#include "runner/api/point.hpp"
#include "runner/api/verification.hpp"

namespace runner::kernels::gemm {

template <typename T>
class CpuGemm : public ArrayOutputWorkload<T> {
 public:
  CpuGemm(const Point& point, std::shared_ptr<const Problem> problem)
      : ArrayOutputWorkload<T>(static_cast<std::size_t>(point.size->m * point.size->n),
                               host_data(*problem).reference,
                               tolerance_for(*point.dtype, Precision::native, point.size->k)),
        problem_(std::move(problem)),
        p_(host_data(*problem_)) {}

 protected:
  static const GemmHostData<T>& host_data(const Problem& problem) {
    return static_cast<const GemmProblem<T>&>(problem).host();
  }

  std::shared_ptr<const Problem> problem_;  // keeps the inputs alive
  const GemmHostData<T>& p_;                // m, n, k, the inputs a and b, the reference
};

// Row i of C by i-k-j loops: the inner loop streams a row of B and a row of C.
template <typename T>
void ikj_row(const T* a, const T* b, T* c, std::int64_t i, std::int64_t n, std::int64_t k) {
  T* crow = c + i * n;
  for (std::int64_t j = 0; j < n; ++j) crow[j] = T(0);
  for (std::int64_t p = 0; p < k; ++p) {
    const T aip = a[i * k + p];
    const T* brow = b + p * n;
    for (std::int64_t j = 0; j < n; ++j) crow[j] += aip * brow[j];
  }
}

}  // namespace runner::kernels::gemm
