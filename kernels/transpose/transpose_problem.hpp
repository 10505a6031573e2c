#pragma once
// Transpose problem: out (n×m) = in (m×n)ᵀ, both row-major. The input is random in [-1, 1) from
// the seed (kernels/common/random_values.hpp); no arithmetic happens, so every variant must
// reproduce the transpose bit for bit (tolerance 0). Two sides, each built only when a point
// needs it: the host side (the input and its transpose widened to double) for CPU points, the
// device side (the expected output regenerated on the device, transpose_device_reference.hpp) for
// GPU points.
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/common/host_array.hpp"
#include "kernels/common/lazy_host_data.hpp"
#include "runner/api/point.hpp"
#include "runner/api/workload.hpp"

namespace runner::kernels::transpose {

// The host side: the input and the reference in host memory.
template <typename T>
struct TransposeHostData {
  std::int64_t m = 0, n = 0;      // rows and columns of the input
  HostArray<T> input;             // m×n, stream 0 of the seed
  std::vector<double> reference;  // the n×m transpose, in double
};

template <typename T>
struct TransposeProblem final : Problem {
  std::int64_t m = 0, n = 0;
  std::uint64_t seed = 0;
  const TransposeHostData<T>& host() const;  // built on the first call

 private:
  LazyHostData<TransposeHostData<T>> host_;
};

std::shared_ptr<const Problem> make_problem(const Point& point, std::uint64_t seed);

// No arithmetic: flops are 0. The input is read once and the output written once.
double bytes(const Point& point);

}  // namespace runner::kernels::transpose
