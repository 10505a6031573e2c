#pragma once
// The second argument of __launch_bounds__ means different things to the two compilers:
//   - nvcc: the minimum number of resident blocks per SM (it caps registers so that they fit);
//   - HIP (clang, amdgpu): the minimum number of waves per execution unit (a SIMD; a CU has 4).
// min_resident(threads_per_block, blocks_per_sm) turns the CUDA form into the one this build's
// compiler expects, so a kernel states its occupancy once, in CUDA's terms:
//   __global__ void __launch_bounds__(256, runner::gpu::min_resident(256, 8)) kernel(...)
// Safe to include in .cu files.
namespace runner::gpu {

#if defined(RUNNER_HAVE_HIP)
inline constexpr int kWaveSize = 64;        // the compile-time wavefront of gfx9 and CDNA (wave64)
inline constexpr int kSimdsPerCu = 4;       // execution units of a compute unit
inline constexpr int kMaxWavesPerSimd = 8;  // gfx90a's limit (gfx906: 10); more is not a hint
#endif

constexpr int min_resident(int threads_per_block, int blocks_per_sm) {
#if defined(RUNNER_HAVE_HIP)
  const int waves = blocks_per_sm * ((threads_per_block + kWaveSize - 1) / kWaveSize);
  const int per_simd = (waves + kSimdsPerCu - 1) / kSimdsPerCu;
  return per_simd < 1 ? 1 : (per_simd > kMaxWavesPerSimd ? kMaxWavesPerSimd : per_simd);
#else
  (void)threads_per_block;
  return blocks_per_sm;
#endif
}

}  // namespace runner::gpu
