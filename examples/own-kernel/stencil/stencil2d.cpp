// The stencil2d family (stencil2d.hpp) and its CPU variants, as one plugin: the family's line
// (RUNNER_REGISTER_KERNEL) with its axes, FLOP and byte counts and problem, then one line per
// variant, exactly as a family of the runner's own kernels/ is registered.
#include <cstdint>

#include "runner/api/registry.hpp"
#include "runner/api/variant.hpp"
#include "stencil2d.hpp"

namespace stencil2d {

namespace {

runner::KernelInfo make_stencil2d_kernel() {
  runner::KernelInfo k;
  k.name = "stencil2d";
  k.description = "one Jacobi step of the 2-D heat equation (5 points), boundary copied";
  k.axes = {runner::Axis::size, runner::Axis::dtype};
  k.dtypes = {runner::Dtype::f32, runner::Dtype::f64};
  k.flops = flops;
  k.bytes = bytes;
  k.reduction_length = [](const Point&) -> std::int64_t { return 5; };
  k.make_problem = make_problem;
  k.default_measure = runner::MeasureMode::cold;  // memory-bound: time it on a cold cache
  return k;
}

// The step as written in a textbook, row by row; `parallel` shares the rows among the OpenMP
// threads.
template <typename T>
class RowLoop : public CpuStencil<T> {
 public:
  using CpuStencil<T>::CpuStencil;

 protected:
  void step(bool parallel) {
    const std::int64_t m = this->p_.m, n = this->p_.n;
    const T* in = this->p_.input.data();
    T* out = this->out_.data();
    const T c = static_cast<T>(kCentre), e = static_cast<T>(kNeighbour);
#pragma omp parallel for schedule(static) if (parallel)
    for (std::int64_t i = 0; i < m; ++i) {
      if (i == 0 || i == m - 1) {
        for (std::int64_t j = 0; j < n; ++j) out[i * n + j] = in[i * n + j];
        continue;
      }
      out[i * n] = in[i * n];
      for (std::int64_t j = 1; j < n - 1; ++j) {
        const std::int64_t at = i * n + j;
        out[at] = c * in[at] + e * (in[at - n] + in[at + n] + in[at - 1] + in[at + 1]);
      }
      out[i * n + n - 1] = in[i * n + n - 1];
    }
  }
};

// One thread: the speedup baseline.
template <typename T>
class OmpSerial final : public RowLoop<T> {
 public:
  using RowLoop<T>::RowLoop;
  void run() override { this->step(false); }
};

template <typename T>
class Omp final : public RowLoop<T> {
 public:
  using RowLoop<T>::RowLoop;
  void run() override { this->step(true); }
};

}  // namespace

RUNNER_REGISTER_KERNEL(make_stencil2d_kernel);

RUNNER_FACTORY(omp_serial, by_dtype<OmpSerial>);
RUNNER_FACTORY(omp, by_dtype<Omp>);
// clang-format off
RUNNER_CPU_VARIANT(stencil2d, omp_serial, {.description = "row by row, one thread (speedup baseline)"});
RUNNER_CPU_VARIANT(stencil2d, omp, {.axes = {runner::Axis::threads}, .description = "rows shared by omp parallel for"});
// clang-format on

}  // namespace stencil2d
