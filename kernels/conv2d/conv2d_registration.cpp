// The conv2d kernel family (seed 001): its axes, metrics, reference and every variant, CPU and
// CUDA.
#include "kernels/conv2d/conv2d_cpu.hpp"
#include "kernels/conv2d/conv2d_cuda.hpp"
#include "kernels/conv2d/conv2d_problem.hpp"
#include "runner/api/registry.hpp"

namespace runner::kernels::conv2d {

namespace {

KernelInfo make_conv2d_kernel() {
  KernelInfo k;
  k.name = "conv2d";
  k.description =
      "2-D cross-correlation of an m×n image with a ks×ks filter, zero padding, same size";
  k.axes = {Axis::size, Axis::dtype, Axis::kernel_size};
  k.dtypes = {Dtype::f32};
  k.flops = flops;
  k.bytes = bytes;
  k.reduction_length = reduction_length;
  k.make_problem = make_problem;
  k.variants = {
      {.name = "omp_serial",
       .backend = Backend::cpu,
       .description = "seed 001 base loop (border test per tap), one thread (speedup baseline)",
       .factory = make_omp_serial},
      {.name = "omp",
       .backend = Backend::cpu,
       .axes = {Axis::threads},
       .description = "omp parallel for over rows, border clipped out of a vectorised row loop",
       .factory = make_omp},
      {.name = "naive",
       .backend = Backend::cuda,
       .axes = {Axis::block},
       .description = "one thread per output, taps from global memory, filter in constant memory",
       .factory = RUNNER_CUDA_FACTORY(make_naive)},
      {.name = "shared",
       .backend = Backend::cuda,
       .axes = {Axis::block},
       .description = "block tile + halo in shared memory, filter in constant memory",
       .factory = RUNNER_CUDA_FACTORY(make_shared_tile)},
      {.name = "shared_reg",
       .backend = Backend::cuda,
       .description = "shared tile + halo, 4x4 (ks 7: 8x4) outputs per thread in registers, fixed "
                      "32x8 block, unrolled for ks <= 9, ks 7 cp.async-pipelined",
       .factory = RUNNER_CUDA_FACTORY(make_shared_reg)},
      {.name = "cudnn",
       .backend = Backend::cuda,
       .description = "cuDNN convolution forward (cross-correlation, FMA math, fastest "
                      "non-FFT/Winograd algorithm): the GPU reference",
#ifdef RUNNER_HAVE_CUDNN
       .factory = RUNNER_CUDA_FACTORY(make_cudnn)},
#else
       // Registered all the same, so that configs naming it stay valid everywhere: its points
       // are recorded skipped with this reason.
       .unavailable_reason = "built without cuDNN"},
#endif
  };
  return k;
}

}  // namespace

RUNNER_REGISTER_KERNEL(make_conv2d_kernel);

}  // namespace runner::kernels::conv2d
