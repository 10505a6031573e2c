// Device code of the GPU calibration (runner/measure/calibration_gpu.hpp). No fmt or spdlog here.
#include "runner/measure/calibration_gpu.hpp"

namespace runner::cuda {

namespace {

// kFmaChains independent chains x = x·a + b. With a = 1 - 2⁻²⁰ and b = 1e-7 they converge to
// b / (1 - a) ≈ 0.1: finite, normal values whatever the number of iterations.
template <typename T>
__global__ void fma_peak(int iterations, T a, T b, T* sink) {
  T x[kFmaChains];
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) x[c] = static_cast<T>(threadIdx.x + c) * T(1e-3);
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int u = 0; u < kFmaUnroll; ++u) {
#pragma unroll
      for (int c = 0; c < kFmaChains; ++c) x[c] = fma(x[c], a, b);
    }
  }
  T sum = 0;
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) sum += x[c];
  if (sum == T(-1)) *sink = sum;  // never: the chains stay positive
}

__device__ std::uint64_t mix(std::uint64_t x) {
  // splitmix64's finaliser: a well-spread 64-bit hash of the index.
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <typename T>
__global__ void fill_uniform(T* data, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const double u = static_cast<double>(mix(seed ^ (i * 0x2545f4914f6cdd1dull)) >> 11) * 0x1.0p-53;
    data[i] = static_cast<T>(2 * u - 1);
  }
}

constexpr unsigned kFillBlocks = 1024, kFillThreads = 256;

}  // namespace

void launch_fma_peak_f32(dim3 grid, dim3 block, int iterations, float* sink, cudaStream_t stream) {
  fma_peak<float><<<grid, block, 0, stream>>>(iterations, 1.0f - 0x1.0p-20f, 1e-7f, sink);
}

void launch_fma_peak_f64(dim3 grid, dim3 block, int iterations, double* sink, cudaStream_t stream) {
  fma_peak<double><<<grid, block, 0, stream>>>(iterations, 1.0 - 0x1.0p-20, 1e-7, sink);
}

void launch_fill_uniform_f32(float* data, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  fill_uniform<float><<<kFillBlocks, kFillThreads, 0, stream>>>(data, n, seed);
}

void launch_fill_uniform_f64(double* data, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  fill_uniform<double><<<kFillBlocks, kFillThreads, 0, stream>>>(data, n, seed);
}

}  // namespace runner::cuda
