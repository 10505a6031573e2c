#pragma once
// The GPU ceilings `runner calibrate` measures (runner/measure/calibration.hpp stores them). The
// kernel launchers are declared here for runner/measure/calibration_gpu_kernels.cu; the
// measurements themselves are host code in runner/measure/calibration_gpu.cpp. Safe to include in
// .cu files.
#include "runner/api/gpu/runtime.hpp"

#include <cstddef>
#include <cstdint>

namespace runner::cuda {

// Independent FMA chains per thread in the peak kernels, and FMAs per chain per loop iteration:
// enough independent work for the FMA pipes at any occupancy, and a loop whose counter and branch
// are under 0.5 % of its instructions.
constexpr int kFmaChains = 8;
constexpr int kFmaUnroll = 32;

// Launches the FMA-peak kernel: grid × block threads, each doing `iterations` × kFmaUnroll ×
// kFmaChains fused multiply-adds on values that stay finite and normal; `sink` receives a value
// only in a case that never happens, which keeps the compiler from removing the chains.
void launch_fma_peak_f32(dim3 grid, dim3 block, int iterations, float* sink, cudaStream_t stream);
void launch_fma_peak_f64(dim3 grid, dim3 block, int iterations, double* sink, cudaStream_t stream);

// Fills `n` elements with values uniform in [-1, 1) from a hash of (seed, index): GEMM inputs
// whose power draw (and hence clock) is that of real data, not of zeros.
void launch_fill_uniform_f32(float* data, std::size_t n, std::uint64_t seed, cudaStream_t stream);
void launch_fill_uniform_f64(double* data, std::size_t n, std::uint64_t seed, cudaStream_t stream);

// The measured figures (GB/s and GFLOP/s, 1e9), each the median of its samples.
struct GpuCeilingFigures {
  double copy_gbps = 0;        // cudaMemcpyAsync device to device of kCopyBytes, read + written
  double fp32_fma_gflops = 0;  // the FMA-peak kernel, 2 flops per FMA
  double fp64_fma_gflops = 0;
  double sgemm_gflops = 0;       // cuBLAS SGEMM, pedantic FP32 (no TF32), kGemmSize³
  double sgemm_tf32_gflops = 0;  // cuBLAS SGEMM on TF32 tensor cores
  double dgemm_gflops = 0;       // cuBLAS DGEMM, default math (FP64 tensor cores where present)
  double sm_clock_mhz = 0;       // mean SM clock over the measurements (NVML), 0 if unknown
  int samples = 0;               // per figure
  double spread = 0;             // the largest stddev / mean of any figure's samples
};

constexpr std::size_t kCopyBytes = std::size_t{1} << 30;
constexpr int kGemmSize = 8192;

// Measures every figure on device 0 (the CUDA runtime must be usable in this process: not a
// process forked after CUDA was initialised). Throws CudaError or std::runtime_error.
GpuCeilingFigures measure_gpu_ceilings();

}  // namespace runner::cuda
