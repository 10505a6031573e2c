#pragma once
// GEMM problem: C (m×n) = A (m×k) · B (k×n), all row-major. Inputs are random in [-1, 1); the
// reference is computed in double (OpenBLAS dgemm on the same values widened to double).
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/common/host_array.hpp"
#include "runner/api/point.hpp"
#include "runner/api/workload.hpp"

namespace runner::kernels::gemm {

template <typename T>
struct GemmProblem final : Problem {
  std::int64_t m = 0, n = 0, k = 0;
  HostArray<T> a, b;
  std::vector<double> reference;  // C in double
};

std::shared_ptr<const Problem> make_problem(const Point& point, std::uint64_t seed);

// 2·m·n·k floating-point operations; A and B read once, C written once.
double flops(const Point& point);
double bytes(const Point& point);

}  // namespace runner::kernels::gemm
