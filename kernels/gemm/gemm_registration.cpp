// The gemm kernel family: its axes, metrics, reference and every variant, CPU and CUDA.
#include "kernels/gemm/gemm_cpu.hpp"
#include "kernels/gemm/gemm_cuda.hpp"
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
  k.variants = {
      {.name = "omp_serial",
       .backend = Backend::cpu,
       .description = "i-k-j loops, one thread (speedup baseline)",
       .factory = make_omp_serial},
      {.name = "omp_naive",
       .backend = Backend::cpu,
       .axes = {Axis::threads},
       .description = "i-k-j loops, omp parallel for over rows",
       .factory = make_omp_naive},
      {.name = "omp_blocked",
       .backend = Backend::cpu,
       .axes = {Axis::threads},
       .description = "cache tiles + 1x4 register blocking",
       .factory = make_omp_blocked},
      {.name = "omp_tiled",
       .backend = Backend::cpu,
       .axes = {Axis::threads},
       .description = "packed kc x nc / mc x kc blocks + SIMD register micro-kernel (BLIS-style)",
       .factory = make_omp_tiled},
      {.name = "openblas",
       .backend = Backend::cpu,
       .axes = {Axis::threads},
       .description = "OpenBLAS cblas_?gemm (CPU reference)",
       .factory = make_openblas},
      {.name = "naive_1d",
       .backend = Backend::cuda,
       .axes = {Axis::block, Axis::grid},
       .description = "1-D grid-stride loop, one output per step; grid = blocks, 0: one per output",
       .factory = RUNNER_CUDA_FACTORY(make_naive_1d)},
      {.name = "naive_2d",
       .backend = Backend::cuda,
       .axes = {Axis::block},
       .description = "one thread per output, 2-D grid of 2-D blocks",
       .factory = RUNNER_CUDA_FACTORY(make_naive_2d)},
      {.name = "shared",
       .backend = Backend::cuda,
       .axes = {Axis::block},
       .description = "shared-memory tiles the size of the (square) block, one output per thread",
       .factory = RUNNER_CUDA_FACTORY(make_shared_tiled)},
      {.name = "cublas",
       .backend = Backend::cuda,
       .description = "cuBLAS SGEMM (pedantic FP32, no TF32) / DGEMM: the GPU reference",
       .factory = RUNNER_CUDA_FACTORY(make_cublas)},
      {.name = "regtile",
       .backend = Backend::cuda,
       .dtypes = {Dtype::f32},
       .description =
           "FP32 SIMT: 128x128x16 smem tiles (A transposed), 8x8 register tile a thread, "
           "32x64 warp tiles, double-buffered fragments; fixed tile, no block axis",
       .factory = RUNNER_CUDA_FACTORY(make_regtile)},
      {.name = "dmma",
       .backend = Backend::cuda,
       .dtypes = {Dtype::f64},
       .description = "FP64 tensor cores (mma.sync m16n8k8 on sm_90+, m8n8k4 on sm_80-89): "
                      "128x128x32 tiles (x16 where shared memory is short), 3-stage cp.async "
                      "pipeline, 64x32 warp tiles; fixed "
                      "tile, no block axis",
       .factory = RUNNER_CUDA_FACTORY(make_dmma)},
      {.name = "cublas_tf32",
       .backend = Backend::cuda,
       .dtypes = {Dtype::f32},
       .precision = Precision::tf32,
       .description = "cuBLAS SGEMM on TF32 tensor cores: LOWER PRECISION (10-bit mantissa "
                      "operands), verified at the TF32 tolerance",
       .factory = RUNNER_CUDA_FACTORY(make_cublas_tf32)},
  };
  return k;
}

}  // namespace

RUNNER_REGISTER_KERNEL(make_gemm_kernel);

}  // namespace runner::kernels::gemm
