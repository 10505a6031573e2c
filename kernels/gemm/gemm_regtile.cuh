#pragma once
// Device code of the `regtile` variant: FP32 SIMT GEMM, C = A·B, row-major A (m×k), B (k×n),
// C (m×n), for any m, n, k. Included by gemm_regtile.cu; holds no host code, so that it can also
// be compiled as plain C++ by a host-side emulation of the launch (threads as std::threads).
//
// Block: 256 threads computing a 128×128 tile of C over k-steps of 8.
//  - Shared memory, two stages: the A tile stored transposed (a_s[k][m], rows padded to 132 floats
//    so that the transposing stores are conflict-free) and the B tile as it is (b_s[k][n]); both
//    are then read with 16-byte loads along m and n. 2 × (8·132 + 8·128) floats = 16.3 KiB.
//  - Warp tiling: 8 warps as 4 (m) × 2 (n), a warp covering 32×64 of C; its lanes as 4 (m) × 8
//    (n), each thread owning 8×8 outputs as 2×2 sub-tiles of 4×4 (rows r, r+16; columns c, c+32).
//    A lane's A fragment is shared by the 8 lanes of its quarter-warp (broadcast) and the B
//    fragments of a quarter-warp are 128 contiguous bytes, so no shared load conflicts.
//  - Double buffering: the next k-step's tile is loaded from global memory into registers while
//    this one is computed, then stored into the other stage; one barrier per k-step.
//  - Edges: loads past m, n or k are zero-filled (zeros add nothing), stores past m or n dropped.
//    kVec: n and k are multiples of 4 (and the pointers 16-byte aligned), so every row starts on a
//    16-byte boundary and global loads and stores move float4; otherwise scalar loads and stores.
//  - Blocks are ordered in groups of 8 tile rows (a group sweeps its columns together), so that
//    concurrent blocks share A and B tiles in the L2.
#include <cstdint>

namespace runner::kernels::gemm::regtile {

constexpr int kBM = 128, kBN = 128, kBK = 8, kThreads = 256;
constexpr int kAStride = kBM + 4;  // floats per k-row of the transposed A tile (padding)

// Top-left corner of the C tile of block `block`, blocks grouped by 8 tile rows.
struct TileOrigin {
  std::int64_t row0, col0;
};
__device__ __forceinline__ TileOrigin tile_origin(std::int64_t block, std::int64_t tiles_m,
                                                  std::int64_t tiles_n, int tile_m, int tile_n) {
  constexpr std::int64_t kGroup = 8;
  const std::int64_t per_group = kGroup * tiles_n;
  const std::int64_t group = block / per_group;
  const std::int64_t first = group * kGroup;
  const std::int64_t rows = tiles_m - first < kGroup ? tiles_m - first : kGroup;
  const std::int64_t in_group = block - group * per_group;
  return {(first + in_group % rows) * tile_m, (in_group / rows) * tile_n};
}

template <bool kVec>
__global__ void __launch_bounds__(kThreads, 2)
    regtile_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                   std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t tiles_m,
                   std::int64_t tiles_n) {
  __shared__ __align__(16) float a_s[2][kBK][kAStride];
  __shared__ __align__(16) float b_s[2][kBK][kBN];

  const int tid = static_cast<int>(threadIdx.x);
  const TileOrigin tile = tile_origin(blockIdx.x, tiles_m, tiles_n, kBM, kBN);

  // Global → register loads: A tile 128 rows × 8, one float4 (a row, 4 consecutive k) a thread;
  // B tile 8 rows × 128, one float4 (a k-row, 4 consecutive columns) a thread.
  const int a_r = tid >> 1, a_c = (tid & 1) * 4;
  const int b_r = tid >> 5, b_c = (tid & 31) * 4;
  const bool a_row_in = tile.row0 + a_r < m;
  const std::int64_t b_col = tile.col0 + b_c;
  const float* a_src = a + (a_row_in ? (tile.row0 + a_r) * k : 0) + a_c;  // moves kBK a step
  const float* b_src = b + b_r * n + b_col;                               // moves kBK·n a step
  const std::int64_t b_step = kBK * n;
  float4 a_reg, b_reg;

  // k − (first k of the next step to load); ≤ 0 once past the end (the loads then give zeros).
  std::int64_t k_load = k;

  // Loads the next k-step (a_src, b_src point at it) into a_reg, b_reg.
  auto load = [&]() {
    // What is left of k from there, capped at the step: 32-bit compares below.
    const int k_left = k_load < kBK ? static_cast<int>(k_load) : kBK;
    const bool b_row_in = b_r < k_left;
    if constexpr (kVec) {
      // k % 4 == 0 and a_c % 4 == 0: a_c < k_left means all four are inside; likewise for n.
      a_reg = a_row_in && a_c < k_left ? *reinterpret_cast<const float4*>(a_src)
                                       : make_float4(0.f, 0.f, 0.f, 0.f);
      b_reg = b_row_in && b_col < n ? *reinterpret_cast<const float4*>(b_src)
                                    : make_float4(0.f, 0.f, 0.f, 0.f);
    } else {
      a_reg.x = a_row_in && a_c + 0 < k_left ? a_src[0] : 0.f;
      a_reg.y = a_row_in && a_c + 1 < k_left ? a_src[1] : 0.f;
      a_reg.z = a_row_in && a_c + 2 < k_left ? a_src[2] : 0.f;
      a_reg.w = a_row_in && a_c + 3 < k_left ? a_src[3] : 0.f;
      b_reg.x = b_row_in && b_col + 0 < n ? b_src[0] : 0.f;
      b_reg.y = b_row_in && b_col + 1 < n ? b_src[1] : 0.f;
      b_reg.z = b_row_in && b_col + 2 < n ? b_src[2] : 0.f;
      b_reg.w = b_row_in && b_col + 3 < n ? b_src[3] : 0.f;
    }
    a_src += kBK;
    b_src += b_step;
    k_load -= kBK;
  };
  // Registers → stage s: A transposed (row stride 132: the two k-columns a warp writes land 16
  // banks apart, so its 32 stores hit 32 banks), B as loaded.
  auto store = [&](int s) {
    a_s[s][a_c + 0][a_r] = a_reg.x;
    a_s[s][a_c + 1][a_r] = a_reg.y;
    a_s[s][a_c + 2][a_r] = a_reg.z;
    a_s[s][a_c + 3][a_r] = a_reg.w;
    *reinterpret_cast<float4*>(&b_s[s][b_r][b_c]) = b_reg;
  };

  // This thread's outputs: rows a_off + {0..3, 16..19}, columns b_off + {0..3, 32..35} of the tile.
  const int warp = tid >> 5, lane = tid & 31;
  const int a_off = (warp >> 1) * 32 + (lane >> 3) * 4;
  const int b_off = (warp & 1) * 64 + (lane & 7) * 4;
  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;

  load();
  store(0);
  __syncthreads();
  // Step i computes k from kBK·i while k_load = k − kBK·(i + 1): it exists while k_load > −kBK.
  int s = 0;
  while (k_load > -kBK) {
    // The next step, zeros past k (so the last step loads and stores zeros that nothing reads).
    load();
#pragma unroll
    for (int q = 0; q < kBK; ++q) {
      const float4 a0 = *reinterpret_cast<const float4*>(&a_s[s][q][a_off]);
      const float4 a1 = *reinterpret_cast<const float4*>(&a_s[s][q][a_off + 16]);
      const float4 b0 = *reinterpret_cast<const float4*>(&b_s[s][q][b_off]);
      const float4 b1 = *reinterpret_cast<const float4*>(&b_s[s][q][b_off + 32]);
      const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
    // Stage s^1 was last read in the previous step, which every thread finished before the
    // barrier that ended it; its new contents are visible after the barrier below.
    store(s ^ 1);
    __syncthreads();
    s ^= 1;
  }

#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const std::int64_t row = tile.row0 + a_off + (i < 4 ? i : 12 + i);  // i ≥ 4: 16 + (i − 4)
    if (row >= m) continue;
    float* c_row = c + row * n;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const std::int64_t col = tile.col0 + b_off + h * 32;
      const float* v = &acc[i][h * 4];
      if constexpr (kVec) {
        if (col < n) *reinterpret_cast<float4*>(c_row + col) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (col + e < n) c_row[col + e] = v[e];
      }
    }
  }
}

}  // namespace runner::kernels::gemm::regtile
