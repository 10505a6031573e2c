// The gemm kernel family: its axes, metrics and reference, then every variant, one line each (its
// code is in gemm_<variant>.cpp / .cu, which defines the factory the line names).
#include "kernels/gemm/gemm_problem.hpp"
#include "runner/api/registry.hpp"

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
  return k;
}

}  // namespace

RUNNER_REGISTER_KERNEL(make_gemm_kernel);

// clang-format off
RUNNER_CPU_VARIANT(gemm, omp_serial, {.description = "i-k-j loops, one thread (speedup baseline)"});
RUNNER_CPU_VARIANT(gemm, omp_naive, {.axes = {Axis::threads}, .description = "i-k-j loops, omp parallel for over rows"});
RUNNER_CPU_VARIANT(gemm, omp_blocked, {.axes = {Axis::threads}, .description = "cache tiles + 1x4 register blocking"});
RUNNER_CPU_VARIANT(gemm, omp_tiled, {.axes = {Axis::threads}, .description = "packed kc x nc / mc x kc blocks + SIMD register micro-kernel (BLIS-style)"});
RUNNER_CPU_VARIANT(gemm, openblas, {.axes = {Axis::threads}, .description = "OpenBLAS cblas_?gemm (CPU reference)"});
RUNNER_CUDA_VARIANT(gemm, naive_1d, {.axes = {Axis::block, Axis::grid}, .description = "1-D grid-stride loop, one output per step; grid = blocks, 0: one per output"});
RUNNER_CUDA_VARIANT(gemm, naive_2d, {.axes = {Axis::block}, .description = "one thread per output, 2-D grid of 2-D blocks"});
RUNNER_CUDA_VARIANT(gemm, shared, {.axes = {Axis::block}, .description = "shared-memory tiles the size of the (square) block, one output per thread"});
RUNNER_NVIDIA_VARIANT(gemm, cublas, "cuBLAS (rocBLAS is not wired in)", {.description = "cuBLAS SGEMM (pedantic FP32, no TF32) / DGEMM: the GPU reference"});
RUNNER_NVIDIA_VARIANT(gemm, regtile, "32-thread warps (its warp tiles are laid out for them)", {.dtypes = {Dtype::f32}, .description = "FP32 SIMT: 128x128x16 smem tiles (A transposed), 8x8 register tile a thread, 32x64 warp tiles, double-buffered fragments, serpentine FMA order; split-K where tiles are few (summed in a workspace, or on sm_90+ with 64x64 tiles in a thread-block cluster), A or B copied to 32-byte rows where k or n is not a multiple of 8 (timed against reading them as they are); fixed tile, no block axis"});
RUNNER_NVIDIA_VARIANT(gemm, dmma, "FP64 tensor cores (mma.sync) and cp.async", {.dtypes = {Dtype::f64}, .description = "FP64 tensor cores (mma.sync m16n8k8 on sm_90+, m8n8k4 on sm_80-89): 128x128x32 tiles (x16 where shared memory is short), 3-stage cp.async pipeline, 64x32 warp tiles, fragments loaded straight into the mma registers and double-buffered; split-K where tiles are few (2-4 splits summed in a thread-block cluster on sm_90+); fixed tile, no block axis"});
RUNNER_NVIDIA_VARIANT(gemm, cublas_tf32, "cuBLAS and TF32 tensor cores", {.dtypes = {Dtype::f32}, .precision = Precision::tf32, .description = "cuBLAS SGEMM on TF32 tensor cores: LOWER PRECISION (10-bit mantissa operands), verified at the TF32 tolerance"});
// clang-format on

}  // namespace runner::kernels::gemm
