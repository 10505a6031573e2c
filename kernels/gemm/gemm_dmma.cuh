#pragma once
// Device code of the `dmma` variant: FP64 GEMM on the tensor cores (mma.sync m8n8k4 f64, sm_80+),
// C = A·B, row-major A (m×k), B (k×n), C (m×n), for any m, n, k. Included by gemm_dmma.cu; holds no
// host code, so that it can also be compiled as plain C++ by a host-side emulation of the launch
// (the PTX is then replaced by plain copies and RUNNER_GEMM_EMULATE_MMA_F64).
//
// Block: 256 threads (8 warps) computing a 128×64 tile of C over k-steps of 16.
//  - Shared memory, three stages filled by cp.async (8-byte copies, zero-filled past m, n or k):
//    the A tile row-major a_s[128][20], the B tile b_s[16][68]; the padding (20 ≡ 68 ≡ 4 mod 16
//    doubles) makes the fragment loads below conflict-free. 3 × 29,184 B = 87,552 B per block.
//  - Warps as 4 (m) × 2 (n), each computing 32×32 of C as 4×4 fragments of 8×8 (32 doubles of
//    accumulators a thread), four mma k-steps of 4 per stage.
//  - Fragments of mma.m8n8k4.row.col.f64 (PTX ISA, g = lane / 4, t = lane % 4): A holds
//    A[g][t], B holds B[t][g] (k = t, n = g), C/D hold C[g][2t] and C[g][2t + 1].
//  - Blocks in groups of 8 tile rows, like regtile (tile_origin).
#include <cstddef>
#include <cstdint>

#include "kernels/gemm/gemm_regtile.cuh"  // tile_origin

namespace runner::kernels::gemm::dmma {

constexpr int kBM = 128, kBN = 64, kBK = 16, kThreads = 256, kStages = 3;
constexpr int kLdA = kBK + 4;  // doubles per row of the A tile
constexpr int kLdB = kBN + 4;  // doubles per k-row of the B tile
constexpr int kStageA = kBM * kLdA;
constexpr int kStageDoubles = kStageA + kBK * kLdB;
constexpr std::size_t kSharedBytes = std::size_t{kStages} * kStageDoubles * sizeof(double);

// Copies one double from global to shared memory asynchronously; zero when !valid (src is then
// not read, but must still be a valid address).
__device__ __forceinline__ void cp_async_f64(double* dst, const double* src, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned dst_shared = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(dst_shared), "l"(src),
               "r"(valid ? 8 : 0)
               : "memory");
#else
  *dst = valid ? *src : 0.0;
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
// Waits until at most `kPending` committed groups of this thread are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}

// d += a·b for one 8×8×4 fragment (warp-wide).
__device__ __forceinline__ void mma_f64(double (&d)[2], double a, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
               : "+d"(d[0]), "+d"(d[1])
               : "d"(a), "d"(b));
#elif defined(RUNNER_GEMM_EMULATE_MMA_F64)
  RUNNER_GEMM_EMULATE_MMA_F64(d, a, b);
#endif
}

__global__ void __launch_bounds__(kThreads, 2)
    dmma_kernel(const double* __restrict__ a, const double* __restrict__ b, double* __restrict__ c,
                std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t tiles_m,
                std::int64_t tiles_n) {
  // Built for an arch without FP64 mma the body is empty; the host never launches it there
  // (compute capability < 8.0 is recorded skipped).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  extern __shared__ __align__(16) unsigned char dmma_shared[];
  double* const smem = reinterpret_cast<double*>(dmma_shared);

  const int tid = static_cast<int>(threadIdx.x);
  const regtile::TileOrigin tile = regtile::tile_origin(blockIdx.x, tiles_m, tiles_n, kBM, kBN);

  // Tile loads. A: 128 rows × 16, a thread copies column a_c of rows a_r0 + 16·i (i < 8), a warp
  // two 128-byte row segments. B: 16 rows × 64, a thread copies column b_c of k-rows b_r0 + 4·i
  // (i < 4), a warp one 256-byte row segment.
  const int a_c = tid & 15, a_r0 = tid >> 4;
  const int b_c = tid & 63, b_r0 = tid >> 6;
  const std::int64_t b_col = tile.col0 + b_c;
  const bool b_col_in = b_col < n;
  const std::int64_t k_tiles = (k + kBK - 1) / kBK;

  auto load_tile = [&](int stage, std::int64_t kt) {
    double* const as = smem + stage * kStageDoubles;
    double* const bs = as + kStageA;
    const std::int64_t p0 = kt * kBK;
    const bool a_k_in = p0 + a_c < k;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int r = a_r0 + 16 * i;
      const std::int64_t row = tile.row0 + r;
      const bool in = a_k_in && row < m;
      cp_async_f64(as + r * kLdA + a_c, in ? a + row * k + p0 + a_c : a, in);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int r = b_r0 + 4 * i;
      const std::int64_t krow = p0 + r;
      const bool in = b_col_in && krow < k;
      cp_async_f64(bs + r * kLdB + b_c, in ? b + krow * n + b_col : b, in);
    }
  };

  const int warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;
  const int wm = (warp >> 1) * 32, wn = (warp & 1) * 32;
  double acc[4][4][2];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[i][j][0] = acc[i][j][1] = 0.0;
  }

  // Prologue: the first kStages − 1 tiles in flight, one commit group each (empty groups past the
  // end keep the count uniform).
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < k_tiles) load_tile(s, s);
    cp_async_commit();
  }
  int read_stage = 0, write_stage = kStages - 1;
  for (std::int64_t kt = 0; kt < k_tiles; ++kt) {
    // kStages − 1 + kt groups committed; with at most kStages − 2 pending, tiles 0..kt have landed
    // (this thread's copies); the barrier makes every thread's visible, and also ends the reads
    // of the stage about to be refilled (the one read in step kt − 1).
    cp_async_wait<kStages - 2>();
    __syncthreads();
    if (kt + kStages - 1 < k_tiles) load_tile(write_stage, kt + kStages - 1);
    cp_async_commit();
    write_stage = write_stage == kStages - 1 ? 0 : write_stage + 1;

    const double* const as = smem + read_stage * kStageDoubles;
    const double* const bs = as + kStageA;
#pragma unroll
    for (int ks = 0; ks < kBK; ks += 4) {
      double af[4], bf[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) af[i] = as[(wm + i * 8 + g) * kLdA + ks + t];
#pragma unroll
      for (int j = 0; j < 4; ++j) bf[j] = bs[(ks + t) * kLdB + wn + j * 8 + g];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) mma_f64(acc[i][j], af[i], bf[j]);
    }
    read_stage = read_stage == kStages - 1 ? 0 : read_stage + 1;
  }
  cp_async_wait<0>();  // nothing real is in flight here; leaves no copy pending at exit

#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const std::int64_t row = tile.row0 + wm + i * 8 + g;
    if (row >= m) continue;
    double* const c_row = c + row * n;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const std::int64_t col = tile.col0 + wn + j * 8 + 2 * t;
      if (col < n) c_row[col] = acc[i][j][0];
      if (col + 1 < n) c_row[col + 1] = acc[i][j][1];
    }
  }
#endif
}

}  // namespace runner::kernels::gemm::dmma
