// The transpose kernel family: its axes, metrics, reference and every variant, CPU and CUDA.
#include "kernels/transpose/transpose_cpu.hpp"
#include "kernels/transpose/transpose_cuda.hpp"
#include "kernels/transpose/transpose_problem.hpp"
#include "runner/api/registry.hpp"

namespace runner::kernels::transpose {

namespace {

KernelInfo make_transpose_kernel() {
  KernelInfo k;
  k.name = "transpose";
  k.description = "out (n×m) = in (m×n)ᵀ, row-major; exact (tolerance 0)";
  k.axes = {Axis::size, Axis::dtype};
  k.dtypes = {Dtype::f32, Dtype::f64};
  k.flops = [](const Point&) { return 0.0; };
  k.bytes = bytes;
  k.reduction_length = [](const Point&) -> std::int64_t { return 0; };
  k.make_problem = make_problem;
  k.ceiling_variant = "copy";
  k.variants = {
      {.name = "omp_serial",
       .backend = Backend::cpu,
       .description = "row by row, one thread (speedup baseline)",
       .factory = make_omp_serial},
      {.name = "omp_naive",
       .backend = Backend::cpu,
       .axes = {Axis::threads},
       .description = "row by row, omp parallel for over rows",
       .factory = make_omp_naive},
      {.name = "omp_blocked",
       .backend = Backend::cpu,
       .axes = {Axis::threads},
       .description = "32x32 cache tiles, omp parallel for over tiles",
       .factory = make_omp_blocked},
      {.name = "naive_row",
       .backend = Backend::cuda,
       .axes = {Axis::block},
       .description = "one thread per element: coalesced reads, strided writes",
       .factory = RUNNER_CUDA_FACTORY(make_naive_row)},
      {.name = "naive_col",
       .backend = Backend::cuda,
       .axes = {Axis::block},
       .description = "one thread per element: strided reads, coalesced writes",
       .factory = RUNNER_CUDA_FACTORY(make_naive_col)},
      {.name = "smem",
       .backend = Backend::cuda,
       .axes = {Axis::block},
       .description = "shared tile block.x square (block.y <= block.x), no padding: bank conflicts",
       .factory = RUNNER_CUDA_FACTORY(make_smem)},
      {.name = "smem_pad",
       .backend = Backend::cuda,
       .axes = {Axis::block},
       .description = "shared tile block.x square padded by one column (block.y <= block.x)",
       .factory = RUNNER_CUDA_FACTORY(make_smem_pad)},
      {.name = "tiled_rows",
       .backend = Backend::cuda,
       .axes = {Axis::block},
       .description = "TILE_DIM x BLOCK_ROWS (block [TILE, ROWS], TILE in 8/16/32/64), padded",
       .factory = RUNNER_CUDA_FACTORY(make_tiled_rows)},
      {.name = "tiled_vec",
       .backend = Backend::cuda,
       .description = "16-byte vector loads and stores, 4 per thread, fixed 64x64 (float) / 32x32 "
                      "(double) swizzled tile",
       .factory = RUNNER_CUDA_FACTORY(make_tiled_vec)},
      {.name = "copy",
       .backend = Backend::cuda,
       .axes = {Axis::block},
       .description = "grid-stride 16-byte-vector copy of the same bytes: the pct_of_copy ceiling",
       .factory = RUNNER_CUDA_FACTORY(make_copy)},
  };
  return k;
}

}  // namespace

RUNNER_REGISTER_KERNEL(make_transpose_kernel);

}  // namespace runner::kernels::transpose
