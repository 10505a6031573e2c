#pragma once
// Device code of the `regtile` variant: FP32 SIMT GEMM, C = A·B, row-major A (m×k), B (k×n),
// C (m×n), for any m, n, k. Included by gemm_regtile.cu; holds no host code, so that it can also
// be compiled as plain C++ by a host-side emulation of the launch (threads as fibers), and by a
// candidate tiling registered as its own variant while tuning (docs/performance.md, "Log").
//
// The kernel is a template over its tiling (struct Tiling); `Regtile` below is the instance the
// variant launches.
//  - Block: WARPS_M·WARPS_N warps computing a BM×BN tile of C over k-steps of BK.
//  - Shared memory, two stages: the A tile stored transposed (a_s[k][m], rows padded to BM + 4
//    floats so that the transposing stores are spread over the banks) and the B tile as it is
//    (b_s[k][n]); both are then read with 16-byte loads along m and n.
//  - Warp tiling: WARPS_M × WARPS_N warps, each covering a WTM×WTN tile of C; its lanes as
//    LM (m) × LN (n), each thread owning TM×TN outputs as (TM/4)×(TN/4) sub-tiles of 4×4, spaced
//    4·LM rows and 4·LN columns apart. A lane's A fragment is shared by the LN lanes of its row
//    (broadcast) and the B fragments of the LN lanes of a row are contiguous (LN·16 bytes), so
//    the 16-byte shared loads have no bank conflicts.
//  - Double buffering: the next k-step's tile is loaded from global memory into registers while
//    this one is computed, then stored into the other stage; one barrier per k-step. With
//    kFragDb the shared→register fragments of k-row q + 1 are loaded before the FMAs of row q.
//  - Edges: loads past m, n or k are zero-filled (zeros add nothing), stores past m or n dropped.
//    A's rows are lda floats apart and B's ldb (k and n, or the padded copies of
//    gemm_padded_operands.cuh). kVecLoads: lda and ldb are multiples of 4 (and the pointers
//    16-byte aligned), so every row starts on a 16-byte boundary and global loads move float4;
//    a float4 that reaches past k or n then reads the rows' padding, which meets zeros (B rows
//    past k are zero-filled) or lands in C columns past n (dropped). kVecStores: likewise for C,
//    whose rows are ldc floats apart (n, or the split-K workspace's rows padded to a multiple of
//    4: gemm_split_k.cuh). Otherwise scalar loads or stores.
//  - Blocks are ordered in groups of kGroup tile rows (a group sweeps its columns together), so
//    that concurrent blocks share A and B tiles in the L2.
//  - Split-K (gemm_split_k.cuh): block row y of the grid computes chunk y of k into slice y of the
//    workspace, or, launched in clusters of (1, splits, 1) (sm_90+, tilings whose shared memory
//    holds a whole partial tile: kClusterSum), into its accumulators, which the cluster's blocks
//    add up through distributed shared memory and store to C.
#include <cooperative_groups.h>

#include <cstdint>

#include "kernels/common/dependent_launch.cuh"

namespace runner::kernels::gemm::regtile {

// BM×BN block tile, k-step BK; WARPS_M × WARPS_N warps; TM×TN outputs a thread (multiples of 4);
// kMinBlocks: __launch_bounds__ minimum blocks per SM; kFragDb: register double buffering of the
// shared-memory fragments; kGroup: tile rows per L2 group.
template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int TM_, int TN_, int kMinBlocks_,
          bool kFragDb_ = false, int kGroup_ = 8>
struct Tiling {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WARPS_M = WARPS_M_, WARPS_N = WARPS_N_;
  static constexpr int TM = TM_, TN = TN_, kMinBlocks = kMinBlocks_, kGroup = kGroup_;
  static constexpr bool kFragDb = kFragDb_;
  static constexpr int kThreads = WARPS_M * WARPS_N * 32;
  static constexpr int WTM = BM / WARPS_M, WTN = BN / WARPS_N;  // warp tile
  static constexpr int LM = WTM / TM, LN = WTN / TN;            // lanes of a warp along m, n
  static constexpr int kAStride = BM + 4;  // floats per k-row of the transposed A tile (padding)
  static constexpr int kALoads = BM * BK / 4 / kThreads;  // float4 a thread per A tile
  static constexpr int kBLoads = BK * BN / 4 / kThreads;  // float4 a thread per B tile
  static constexpr int kSharedFloats = 2 * (BK * kAStride + BK * BN);
  static constexpr int kSharedBytes = kSharedFloats * 4;
  // Whether a block's partial tile fits in its shared memory: the split-K sum in a cluster (the
  // 64×64 tilings; a 128×128 partial tile is twice the stages).
  static constexpr bool kClusterSum = BM * BN <= kSharedFloats;
  static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tile made of 4x4 sub-tiles");
  static_assert(WTM * WARPS_M == BM && WTN * WARPS_N == BN && LM * TM == WTM && LN * TN == WTN);
  static_assert(LM * LN == 32, "a warp is 32 lanes");
  static_assert(BK % 4 == 0 && BM % 32 == 0 && BN % 4 == 0);
  static_assert(kALoads >= 1 && kALoads * kThreads * 4 == BM * BK, "A tile split evenly");
  static_assert(kBLoads >= 1 && kBLoads * kThreads * 4 == BK * BN, "B tile split evenly");
  static_assert(kSharedBytes <= 48 * 1024, "static shared memory");
};

// The instance the `regtile` variant launches: 128×128 tiles, k-step 16, 4×2 warps of 32×64,
// lanes 4×8, 8×8 outputs a thread, shared-memory fragments double-buffered in registers; 2 blocks
// an SM (128 registers, no spills, 32.5 KiB shared). On the H100 (docs/performance.md) it reached
// 47.3 / 48.0 TFLOP/s at 4096³ / 8192³, 92 / 93 % of cuBLAS, before the serpentine FMA order
// (fma_all), with which an H200 runs it at 97.0 / 97.8 %; the k-step of 8 without fragment double
// buffering 83.7 / 84.5 %; 128×256 tiles (1 block an SM) 93.4 / 94.0 %, but a quarter of the
// blocks at the mid sizes where an H100's 132 SMs are not filled.
using Regtile = Tiling<128, 128, 16, 4, 2, 8, 8, 2, true>;

// The smaller tiles the variant also times where C has few 128×128 tiles (gemm_regtile.cu): a
// 513-wide C has a fifth row and column of 128×128 tiles 1 wide, 56 % more tile area than C; of
// 64×64 tiles, 26 %. Two shapes of block, each ahead of the other somewhere (H200, one run):
//  - RegtileSmall: 4 warps of 32×32, 8×4 outputs a thread, 4 blocks an SM (1000³: 78.8 % of
//    cuBLAS against 63.3 % with the other, 257³ 88.6 / 76.9, 1200³ 93.6 / 80.3);
//  - RegtileSmallPair: 2 warps of 32×64, Regtile's 8×8 outputs a thread, 6 blocks an SM (513³
//    76.4 % against 62.1, 300 × 700 × 511 80.7 / 67.9, 800 × 800 × 3000 98.5 / 92.5).
// (Eight blocks of the pair an SM, 128 registers a thread, spilled and ran at 28–78 %; 128 × 64
// and 64 × 128 tiles of 4 warps won at no problem but 2047 × 2049 × 2051, by 0.1 points.)
using RegtileSmall = Tiling<64, 64, 16, 2, 2, 8, 4, 4, true>;
using RegtileSmallPair = Tiling<64, 64, 16, 2, 1, 8, 8, 6, true>;

// Top-left corner of the C tile of block `block`, blocks grouped by kGroup tile rows.
struct TileOrigin {
  std::int64_t row0, col0;
};
template <int kGroup = 8>
__device__ __forceinline__ TileOrigin tile_origin(std::int64_t block, std::int64_t tiles_m,
                                                  std::int64_t tiles_n, int tile_m, int tile_n) {
  const std::int64_t per_group = kGroup * tiles_n;
  const std::int64_t group = block / per_group;
  const std::int64_t first = group * kGroup;
  const std::int64_t rows = tiles_m - first < kGroup ? tiles_m - first : kGroup;
  const std::int64_t in_group = block - group * per_group;
  return {(first + in_group % rows) * tile_m, (in_group / rows) * tile_n};
}

// kCluster: the instance that adds a tile's splits in its cluster (cluster_splits > 1, launched in
// clusters of (1, cluster_splits, 1)); the others ignore cluster_splits and are the same code as
// without it (compiled with the cluster sum in the same kernel, the workspace routes ran 2–7 %
// slower from 256³ to 512³ on an H200).
template <class T, bool kVecLoads, bool kVecStores, bool kCluster = false>
__global__ void __launch_bounds__(T::kThreads, T::kMinBlocks)
    regtile_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                   std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t lda,
                   std::int64_t ldb, std::int64_t ldc, std::int64_t tiles_m, std::int64_t tiles_n,
                   std::int64_t k_chunk, int cluster_splits) {
  constexpr int BM = T::BM, BN = T::BN, BK = T::BK, TM = T::TM, TN = T::TN;
  constexpr int kAL = T::kALoads, kBL = T::kBLoads, kThreads = T::kThreads;
  static_assert(!kCluster || T::kClusterSum, "the partial tile must fit in the stages");
  __shared__ __align__(16) float a_s[2][BK][T::kAStride];
  __shared__ __align__(16) float b_s[2][BK][BN];

  const TileOrigin tile = tile_origin<T::kGroup>(blockIdx.x, tiles_m, tiles_n, BM, BN);
  // Split-K (gemm_split_k.cuh): block row y computes k in [y·k_chunk, (y + 1)·k_chunk) into slice
  // y of c (the workspace), or with cluster_splits > 1 into C through the cluster's sum; one
  // split is the whole of k into C.
  const std::int64_t k_begin = std::int64_t{blockIdx.y} * k_chunk;
  const std::int64_t k_len = k - k_begin < k_chunk ? k - k_begin : k_chunk;
  a += k_begin;
  b += k_begin * ldb;
  if constexpr (!kCluster) c += std::int64_t{blockIdx.y} * m * ldc;

  // Global → register loads: load l of a thread is float4 number tid + l·kThreads of the tile:
  // A (BM rows × BK): row idx / (BK/4), k-column 4·(idx % (BK/4)); B (BK rows × BN): row
  // idx / (BN/4), column 4·(idx % (BN/4)). A row index past m reads row 0 (and is zeroed).
  int a_r[kAL], a_c[kAL], b_r[kBL], b_c[kBL];
  bool a_row_in[kAL];
  std::int64_t b_col[kBL];
  const float* a_src[kAL];  // each moves BK a step
  const float* b_src[kBL];  // each moves BK·n a step
#pragma unroll
  for (int l = 0; l < kAL; ++l) {
    const unsigned idx = threadIdx.x + l * kThreads;
    a_r[l] = static_cast<int>(idx / (BK / 4));
    a_c[l] = static_cast<int>(idx % (BK / 4)) * 4;
    a_row_in[l] = tile.row0 + a_r[l] < m;
    a_src[l] = a + (a_row_in[l] ? (tile.row0 + a_r[l]) * lda : 0) + a_c[l];
  }
#pragma unroll
  for (int l = 0; l < kBL; ++l) {
    const unsigned idx = threadIdx.x + l * kThreads;
    b_r[l] = static_cast<int>(idx / (BN / 4));
    b_c[l] = static_cast<int>(idx % (BN / 4)) * 4;
    b_col[l] = tile.col0 + b_c[l];
    b_src[l] = b + b_r[l] * ldb + b_col[l];
  }
  const std::int64_t b_step = BK * ldb;
  float4 a_reg[kAL], b_reg[kBL];

  // k_len − (first k of the next step to load); ≤ 0 once past the end (the loads then give zeros).
  std::int64_t k_load = k_len;

  // Loads the next k-step (a_src, b_src point at it) into a_reg, b_reg.
  auto load = [&]() {
    // What is left of k from there, capped at the step: 32-bit compares below.
    const int k_left = k_load < BK ? static_cast<int>(k_load) : BK;
#pragma unroll
    for (int l = 0; l < kAL; ++l) {
      const int ac = a_c[l];
      if constexpr (kVecLoads) {
        // lda % 4 == 0 and ac % 4 == 0: ac < k_left means all four are inside the row (those past
        // k in its padding).
        a_reg[l] = a_row_in[l] && ac < k_left ? *reinterpret_cast<const float4*>(a_src[l])
                                              : make_float4(0.f, 0.f, 0.f, 0.f);
      } else {
        const bool in = a_row_in[l];
        a_reg[l].x = in && ac + 0 < k_left ? a_src[l][0] : 0.f;
        a_reg[l].y = in && ac + 1 < k_left ? a_src[l][1] : 0.f;
        a_reg[l].z = in && ac + 2 < k_left ? a_src[l][2] : 0.f;
        a_reg[l].w = in && ac + 3 < k_left ? a_src[l][3] : 0.f;
      }
      a_src[l] += BK;
    }
#pragma unroll
    for (int l = 0; l < kBL; ++l) {
      const bool row_in = b_r[l] < k_left;
      const std::int64_t col = b_col[l];
      if constexpr (kVecLoads) {
        // ldb % 4 == 0 and col % 4 == 0: col < n means all four are inside the row (those past n
        // in its padding).
        b_reg[l] = row_in && col < n ? *reinterpret_cast<const float4*>(b_src[l])
                                     : make_float4(0.f, 0.f, 0.f, 0.f);
      } else {
        b_reg[l].x = row_in && col + 0 < n ? b_src[l][0] : 0.f;
        b_reg[l].y = row_in && col + 1 < n ? b_src[l][1] : 0.f;
        b_reg[l].z = row_in && col + 2 < n ? b_src[l][2] : 0.f;
        b_reg[l].w = row_in && col + 3 < n ? b_src[l][3] : 0.f;
      }
      b_src[l] += b_step;
    }
    k_load -= BK;
  };
  // Registers → stage s: A transposed (row stride BM + 4: the k-columns a warp writes land 4·4 =
  // 16 banks apart), B as loaded.
  auto store = [&](int s) {
#pragma unroll
    for (int l = 0; l < kAL; ++l) {
      a_s[s][a_c[l] + 0][a_r[l]] = a_reg[l].x;
      a_s[s][a_c[l] + 1][a_r[l]] = a_reg[l].y;
      a_s[s][a_c[l] + 2][a_r[l]] = a_reg[l].z;
      a_s[s][a_c[l] + 3][a_r[l]] = a_reg[l].w;
    }
#pragma unroll
    for (int l = 0; l < kBL; ++l) *reinterpret_cast<float4*>(&b_s[s][b_r[l]][b_c[l]]) = b_reg[l];
  };

  // This thread's outputs: rows a_off + 4·LM·i4 + {0..3}, columns b_off + 4·LN·j4 + {0..3}.
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int a_off = static_cast<int>((warp / T::WARPS_N) * T::WTM + (lane / T::LN) * 4);
  const int b_off = static_cast<int>((warp % T::WARPS_N) * T::WTN + (lane % T::LN) * 4);
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

  // Fragments of k-row q of stage s into av, bv.
  auto fragments = [&](int s, int q, float(&av)[TM], float(&bv)[TN]) {
#pragma unroll
    for (int i4 = 0; i4 < TM / 4; ++i4) {
      const float4 v = *reinterpret_cast<const float4*>(&a_s[s][q][a_off + i4 * 4 * T::LM]);
      av[i4 * 4 + 0] = v.x;
      av[i4 * 4 + 1] = v.y;
      av[i4 * 4 + 2] = v.z;
      av[i4 * 4 + 3] = v.w;
    }
#pragma unroll
    for (int j4 = 0; j4 < TN / 4; ++j4) {
      const float4 v = *reinterpret_cast<const float4*>(&b_s[s][q][b_off + j4 * 4 * T::LN]);
      bv[j4 * 4 + 0] = v.x;
      bv[j4 * 4 + 1] = v.y;
      bv[j4 * 4 + 2] = v.z;
      bv[j4 * 4 + 3] = v.w;
    }
  };
  // The outer product in serpentine order: odd rows run their columns backwards, so every row
  // starts with the b value the previous row ended with and consecutive FMAs always share an
  // operand, which the operand reuse cache serves instead of a register bank (SASS: 903–930 of a
  // k-step's 1024 FFMAs reuse an operand, 779–785 with every row left to right; dispatch stalls
  // halved). 97.9 / 98.7 / 96.3 % of cuBLAS at 4096³ / 8192³ / 2048³ against 89.4 / 91.0 / 87.9 %
  // left to right (H200, one run, docs/performance.md).
  auto fma_all = [&](const float(&av)[TM], const float(&bv)[TN]) {
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int jj = 0; jj < TN; ++jj) {
        const int j = i % 2 == 0 ? jj : TN - 1 - jj;
        acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
      }
  };

  // Launched after the copy of misaligned operands (gemm_padded_operands.cuh) as its dependent.
  wait_for_producer();
  load();
  store(0);
  __syncthreads();
  // Step i computes k from BK·i while k_load = k − BK·(i + 1): it exists while k_load > −BK.
  int s = 0;
  while (k_load > -BK) {
    // The next step, zeros past k (so the last step loads and stores zeros that nothing reads).
    load();
    if constexpr (T::kFragDb) {
      float av[2][TM], bv[2][TN];
      fragments(s, 0, av[0], bv[0]);
#pragma unroll
      for (int q = 0; q < BK; ++q) {
        if (q + 1 < BK) fragments(s, q + 1, av[(q + 1) & 1], bv[(q + 1) & 1]);
        fma_all(av[q & 1], bv[q & 1]);
      }
    } else {
#pragma unroll
      for (int q = 0; q < BK; ++q) {
        float av[TM], bv[TN];
        fragments(s, q, av, bv);
        fma_all(av, bv);
      }
    }
    // Stage s^1 was last read in the previous step, which every thread finished before the
    // barrier that ended it; its new contents are visible after the barrier below.
    store(s ^ 1);
    __syncthreads();
    s ^= 1;
  }
  // The split-K reduction may be placed beside this block's stores (dependent_launch.cuh).
  allow_dependent_launch();

  // Split-K summed in the cluster (1, cluster_splits, 1) of this tile's splits (kCluster; the host
  // launches it on sm_90+ with 2 <= cluster_splits <= TM). Every block puts its partial tile in
  // its stages, accumulator (i, j) of thread tid at word (i·TN + j)·kThreads + tid of a_s, then
  // b_s (consecutive threads, consecutive words; a_s holds a whole number of kThreads words);
  // block r then adds, for its rows i ≡ r (mod cluster_splits), the cluster's partial tiles in
  // split order (the reduction kernel's sum: 0 + s₀ + s₁ + ..., so the same C to the bit) and
  // stores them.
  [[maybe_unused]] int sum_rank = 0;  // this block's share of the thread tile's rows
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (kCluster) {
    namespace cg = cooperative_groups;
    constexpr int kAWords = 2 * BK * T::kAStride;
    static_assert(kAWords % kThreads == 0, "a thread's words lie in a_s or in b_s, never both");
    const cg::cluster_group cluster = cg::this_cluster();
    __syncthreads();  // every warp has read its last stage: the stages now hold the exchange
    sum_rank = static_cast<int>(cluster.block_rank());  // = blockIdx.y, the split
    float* const a_words = &a_s[0][0][0];
    float* const b_words = &b_s[0][0][0];
    const unsigned tid = threadIdx.x;
    // The word of accumulator (i, j) in the stages of the block whose a_s and b_s are a and b.
    const auto word = [tid](const float* a, const float* b, int i, int j) -> const float* {
      const int w = (i * TN + j) * kThreads;
      return w < kAWords ? a + w + tid : b + (w - kAWords) + tid;
    };
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) *const_cast<float*>(word(a_words, b_words, i, j)) = acc[i][j];
    cluster.sync();  // the partial tiles are in shared memory, visible to the cluster
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      if (i % cluster_splits != sum_rank) continue;
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;
      for (int r = 0; r < cluster_splits; ++r) {
        const float* const a = cluster.map_shared_rank(a_words, r);
        const float* const b = cluster.map_shared_rank(b_words, r);
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += *word(a, b, i, j);
      }
    }
    cluster.sync();  // a block's shared memory must outlive the others' reads of it
  }
#endif

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    if constexpr (kCluster)
      if (i % cluster_splits != sum_rank) continue;  // another block's rows
    const std::int64_t row = tile.row0 + a_off + (i / 4) * 4 * T::LM + i % 4;
    if (row >= m) continue;
    float* c_row = c + row * ldc;
#pragma unroll
    for (int j4 = 0; j4 < TN / 4; ++j4) {
      const std::int64_t col = tile.col0 + b_off + j4 * 4 * T::LN;
      const float* v = &acc[i][j4 * 4];
      if constexpr (kVecStores) {
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
