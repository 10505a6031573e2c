#pragma once
// stencil2d: one Jacobi step of the 2-D heat equation on an m x n grid, a kernel family the runner
// does not have, brought by a plugin (docs/own-kernel.md, "A new kernel family").
//
//   out[i][j] = 0.5 in[i][j] + 0.125 (in[i-1][j] + in[i+1][j] + in[i][j-1] + in[i][j+1])
//
// inside the grid; the boundary rows and columns are copied. The input is random in [-1, 1) from
// the seed (the runner's own generator: CPU and GPU variants see the same numbers); the reference
// is computed in double. Everything a variant needs is here: the problem, its FLOP and byte counts,
// and a CPU and a CUDA base that hold the buffers and verify the output, so that a variant is only
// its run().
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "kernels/common/cpu_workload.hpp"
#include "kernels/common/host_array.hpp"
#include "kernels/common/random_fill.hpp"
#include "runner/api/point.hpp"
#include "runner/api/verification.hpp"
#include "runner/api/workload.hpp"
#if defined(__CUDACC__) || defined(__HIPCC__)
#include "runner/api/cuda/cuda_workload.hpp"
#include "runner/api/cuda/device_buffer.hpp"
#endif

namespace stencil2d {

using runner::Point;
using runner::Problem;

constexpr double kCentre = 0.5, kNeighbour = 0.125;

// One step: 4 additions, 2 multiplications per interior point.
inline double flops(const Point& p) {
  return 6.0 * static_cast<double>(p.size->m - 2) * static_cast<double>(p.size->n - 2);
}
// The grid read once and written once.
inline double bytes(const Point& p) {
  return 2.0 * static_cast<double>(p.size->m) * static_cast<double>(p.size->n) *
         static_cast<double>(runner::dtype_bytes(*p.dtype));
}

template <typename T>
struct StencilProblem final : Problem {
  std::int64_t m = 0, n = 0;
  runner::kernels::HostArray<T> input;  // m x n, stream 0 of the seed
  std::vector<double> reference;        // one step, in double
};

template <typename T>
std::shared_ptr<const Problem> make_problem_of(const Point& point, std::uint64_t seed) {
  auto p = std::make_shared<StencilProblem<T>>();
  p->m = point.size->m;
  p->n = point.size->n;
  p->input = runner::kernels::HostArray<T>(static_cast<std::size_t>(p->m * p->n));
  runner::kernels::fill_uniform<T>(p->input.span(), seed, 0);
  p->reference.resize(static_cast<std::size_t>(p->m * p->n));
  const T* in = p->input.data();
  const std::int64_t m = p->m, n = p->n;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int64_t at = i * n + j;
      const bool edge = i == 0 || j == 0 || i == m - 1 || j == n - 1;
      p->reference[at] =
          edge ? double(in[at])
               : kCentre * double(in[at]) + kNeighbour * (double(in[at - n]) + double(in[at + n]) +
                                                          double(in[at - 1]) + double(in[at + 1]));
    }
  return p;
}

inline std::shared_ptr<const Problem> make_problem(const Point& point, std::uint64_t seed) {
  if (*point.dtype == runner::Dtype::f64) return make_problem_of<double>(point, seed);
  return make_problem_of<float>(point, seed);
}

template <typename T>
const StencilProblem<T>& problem_of(const Problem& problem) {
  return static_cast<const StencilProblem<T>&>(problem);
}

// Base of the CPU variants: the output a host array compared with the reference.
template <typename T>
class CpuStencil : public runner::kernels::ArrayOutputWorkload<T> {
 public:
  CpuStencil(const Point& point, std::shared_ptr<const Problem> problem)
      : runner::kernels::ArrayOutputWorkload<T>(
            static_cast<std::size_t>(point.size->m * point.size->n),
            problem_of<T>(*problem).reference,
            runner::tolerance_for(*point.dtype, runner::Precision::native, 5)),
        problem_(std::move(problem)),
        p_(problem_of<T>(*problem_)) {}

 protected:
  std::shared_ptr<const Problem> problem_;  // keeps the input and the reference alive
  const StencilProblem<T>& p_;
};

#if defined(__CUDACC__) || defined(__HIPCC__)
// Base of the CUDA variants: the input copied to the device once (timed into h2d_ms), the output
// poisoned before every run, copied back and compared with the reference (d2h_ms).
template <typename T>
class CudaStencil : public runner::cuda::CudaWorkload {
 public:
  CudaStencil(const Point& point, std::shared_ptr<const Problem> problem)
      : problem_(std::move(problem)),
        p_(problem_of<T>(*problem_)),
        tolerance_(runner::tolerance_for(*point.dtype, runner::Precision::native, 5)),
        in_(static_cast<std::size_t>(p_.m * p_.n)),
        out_(static_cast<std::size_t>(p_.m * p_.n)) {
    h2d_ms_ = time_on_stream([&] { in_.copy_from_host(p_.input.span(), stream()); });
  }
  void poison_output() override { out_.poison(stream()); }
  runner::Verification verify() override {
    return verify_on_host(out_, std::span<const double>(p_.reference), tolerance_);
  }

 protected:
  std::shared_ptr<const Problem> problem_;
  const StencilProblem<T>& p_;
  double tolerance_;
  runner::cuda::DeviceBuffer<T> in_, out_;
};
#endif

}  // namespace stencil2d
