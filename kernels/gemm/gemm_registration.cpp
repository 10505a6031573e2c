// The gemm kernel family: its axes, metrics, reference and every variant, CPU and CUDA.
#include "kernels/gemm/gemm_cpu.hpp"
#include "kernels/gemm/gemm_problem.hpp"
#include "runner/registry.hpp"

namespace runner::kernels::gemm {

namespace {

KernelInfo make_gemm_kernel() {
  KernelInfo k;
  k.name = "gemm";
  k.description = "C = A·B, row-major, m×k times k×n";
  k.axes = {Axis::size, Axis::dtype};
  k.dtypes = {Dtype::f32, Dtype::f64};
  k.flops = flops;
  k.bytes = bytes;
  k.reduction_length = [](const Point& p) { return p.size->k; };
  k.make_problem = make_problem;
  k.variants = {
      {.name = "omp_serial", .backend = Backend::cpu,
       .description = "i-k-j loops, one thread (speedup baseline)", .factory = make_omp_serial},
      {.name = "omp_naive", .backend = Backend::cpu, .axes = {Axis::threads},
       .description = "i-k-j loops, omp parallel for over rows", .factory = make_omp_naive},
      {.name = "omp_blocked", .backend = Backend::cpu, .axes = {Axis::threads},
       .description = "cache tiles + 1x4 register blocking", .factory = make_omp_blocked},
      {.name = "openblas", .backend = Backend::cpu, .axes = {Axis::threads},
       .description = "OpenBLAS cblas_?gemm (CPU reference)", .factory = make_openblas},
  };
  return k;
}

}  // namespace

RUNNER_REGISTER_KERNEL(make_gemm_kernel);

}  // namespace runner::kernels::gemm
