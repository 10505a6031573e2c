#pragma once
// GEMM problem: C (m×n) = A (m×k) · B (k×n), all row-major. Inputs are random in [-1, 1) from the
// seed (kernels/common/random_values.hpp); the reference is C in double over exactly those values.
// Two sides, each built only when a point needs it: the host side (OpenBLAS dgemm) for CPU
// points, the device side (cuBLAS DGEMM, gemm_device_reference.hpp) for GPU points.
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/common/host_array.hpp"
#include "kernels/common/lazy_host_data.hpp"
#include "runner/api/point.hpp"
#include "runner/api/workload.hpp"

namespace runner::kernels::gemm {

// The host side: the inputs and the reference in host memory.
template <typename T>
struct GemmHostData {
  std::int64_t m = 0, n = 0, k = 0;
  HostArray<T> a, b;              // inputs A = stream 0, B = stream 1 of the seed
  std::vector<double> reference;  // C in double
};

template <typename T>
struct GemmProblem final : Problem {
  std::int64_t m = 0, n = 0, k = 0;
  std::uint64_t seed = 0;
  // Built on the first call (OpenBLAS dgemm on the inputs widened to double).
  const GemmHostData<T>& host() const;

 private:
  LazyHostData<GemmHostData<T>> host_;
};

std::shared_ptr<const Problem> make_problem(const Point& point, std::uint64_t seed);

// 2·m·n·k floating-point operations; A and B read once, C written once.
double flops(const Point& point);
double bytes(const Point& point);

}  // namespace runner::kernels::gemm
