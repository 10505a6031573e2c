#pragma once
// The base of the CPU transpose variants: out (n×m) = in (m×n)ᵀ, row-major, the output a host
// array compared exactly with the problem's reference (its host side).
#include <cstdint>
#include <memory>

#include "kernels/common/cpu_workload.hpp"
#include "kernels/transpose/transpose_problem.hpp"
#include "runner/api/point.hpp"
#include "runner/api/verification.hpp"

namespace runner::kernels::transpose {

template <typename T>
class CpuTranspose : public ArrayOutputWorkload<T> {
 public:
  CpuTranspose(const Point& point, std::shared_ptr<const Problem> problem)
      : ArrayOutputWorkload<T>(static_cast<std::size_t>(point.size->m * point.size->n),
                               host_data(*problem).reference,
                               tolerance_for(*point.dtype, Precision::native, 0)),
        problem_(std::move(problem)),
        p_(host_data(*problem_)) {}

 protected:
  static const TransposeHostData<T>& host_data(const Problem& problem) {
    return static_cast<const TransposeProblem<T>&>(problem).host();
  }

  std::shared_ptr<const Problem> problem_;  // keeps the input and the reference alive
  const TransposeHostData<T>& p_;           // m, n, the input, the reference
};

// Input row i becomes output column i.
template <typename T>
void transpose_row(const T* in, T* out, std::int64_t i, std::int64_t m, std::int64_t n) {
  const T* row = in + i * n;
  for (std::int64_t j = 0; j < n; ++j) out[j * m + i] = row[j];
}

}  // namespace runner::kernels::transpose
