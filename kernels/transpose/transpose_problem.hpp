#pragma once
// Transpose problem: out (n×m) = in (m×n)ᵀ, both row-major. The input is random in [-1, 1); the
// reference is the exact transpose widened to double (no arithmetic happens, so every variant
// must reproduce it bit for bit: tolerance 0).
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/common/host_array.hpp"
#include "runner/api/point.hpp"
#include "runner/api/workload.hpp"

namespace runner::kernels::transpose {

template <typename T>
struct TransposeProblem final : Problem {
  std::int64_t m = 0, n = 0;      // rows and columns of the input
  HostArray<T> input;             // m×n
  std::vector<double> reference;  // the n×m transpose, in double
};

std::shared_ptr<const Problem> make_problem(const Point& point, std::uint64_t seed);

// No arithmetic: flops are 0. The input is read once and the output written once.
double bytes(const Point& point);

}  // namespace runner::kernels::transpose
