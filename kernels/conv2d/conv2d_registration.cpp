// The conv2d kernel family (seed 001): its axes, metrics and reference, then every variant, one
// line each (its code is in conv2d_<variant>.cpp / .cu / .cuda.cpp, which defines the factory the
// line names).
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
  return k;
}

}  // namespace

RUNNER_REGISTER_KERNEL(make_conv2d_kernel);

// cudnn needs cuDNN as well as CUDA (RUNNER_BUILT_CUDNN, from CMakeLists.txt), and is never built
// by HIP builds. It is registered all the same, so that configs naming it stay valid everywhere:
// its points are recorded skipped with the reason.
// clang-format off
RUNNER_CPU_VARIANT(conv2d, omp_serial, {.description = "seed 001 base loop (border test per tap), one thread (speedup baseline)"});
RUNNER_CPU_VARIANT(conv2d, omp, {.axes = {Axis::threads}, .description = "omp parallel for over rows, border clipped out of a vectorised row loop"});
RUNNER_CUDA_VARIANT(conv2d, naive, {.axes = {Axis::block}, .description = "one thread per output, taps from global memory, filter in constant memory"});
RUNNER_CUDA_VARIANT(conv2d, shared, {.axes = {Axis::block}, .description = "block tile + halo in shared memory, filter in constant memory"});
RUNNER_NVIDIA_VARIANT(conv2d, shared_reg, "cp.async (its tile copies)", {.description = "shared tile + halo copied with cp.async, 4x4 outputs per thread in registers, fixed 32x8 block, compiled per ks and n % 4 (whole 16-byte copies and stores at any row length; every tap unrolled to ks 15, filter rows looped beyond), to ks 9 also a persistent self-scheduling grid with pipelined tile copies, the faster of the two forms timed at set-up (RUNNER_CONV2D_FORM pins one)"});
RUNNER_VARIANT(RUNNER_GPU_BACKEND, RUNNER_BUILT_CUDNN, RUNNER_NVIDIA_ONLY("cuDNN (MIOpen is not wired in)", "built without cuDNN"), conv2d, cudnn, {.description = "cuDNN convolution forward (cross-correlation, FMA math, fastest non-FFT/Winograd algorithm): the GPU reference"});
// clang-format on

}  // namespace runner::kernels::conv2d
