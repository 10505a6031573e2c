// The transpose kernel family: its axes, metrics and reference, then every variant, one line each
// (its code is in transpose_<variant>.cpp / .cu, which defines the factory the line names).
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
  return k;
}

}  // namespace

RUNNER_REGISTER_KERNEL(make_transpose_kernel);

// clang-format off
RUNNER_CPU_VARIANT(transpose, omp_serial, {.description = "row by row, one thread (speedup baseline)"});
RUNNER_CPU_VARIANT(transpose, omp_naive, {.axes = {Axis::threads}, .description = "row by row, omp parallel for over rows"});
RUNNER_CPU_VARIANT(transpose, omp_blocked, {.axes = {Axis::threads}, .description = "32x32 cache tiles, omp parallel for over tiles"});
RUNNER_CUDA_VARIANT(transpose, naive_row, {.axes = {Axis::block}, .description = "one thread per element: coalesced reads, strided writes"});
RUNNER_CUDA_VARIANT(transpose, naive_col, {.axes = {Axis::block}, .description = "one thread per element: strided reads, coalesced writes"});
RUNNER_CUDA_VARIANT(transpose, smem, {.axes = {Axis::block}, .description = "shared tile block.x square (block.y <= block.x), no padding: bank conflicts"});
RUNNER_CUDA_VARIANT(transpose, smem_pad, {.axes = {Axis::block}, .description = "shared tile block.x square padded by one column (block.y <= block.x)"});
RUNNER_CUDA_VARIANT(transpose, tiled_rows, {.axes = {Axis::block}, .description = "TILE_DIM x BLOCK_ROWS (block [TILE, ROWS], TILE in 8/16/32/64), padded"});
RUNNER_NVIDIA_VARIANT(transpose, tiled_vec, "the __stwb store intrinsic and 32-lane warps (its swizzle)", {.description = "16-byte vector loads and stores, 4 per thread, fixed 64x64 (float) / 32x32 (double) swizzled tile; where rows are not 16-byte aligned, output segments aligned to 32-byte sectors (path `segments`, one or two tiles a block); a side of 32 or fewer, strips of every row or column (path `strips`)"});
RUNNER_CUDA_VARIANT(transpose, copy, {.axes = {Axis::block}, .description = "grid-stride 16-byte-vector copy of the same bytes: the pct_of_copy ceiling"});
// clang-format on

}  // namespace runner::kernels::transpose
