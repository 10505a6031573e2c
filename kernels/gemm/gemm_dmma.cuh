#pragma once
// Device code of the `dmma` variant: FP64 GEMM on the tensor cores, C = A·B, row-major A (m×k),
// B (k×n), C (m×n), for any m, n, k. Included by gemm_dmma.cu; holds no host code, so that it can
// also be compiled as plain C++ by a host-side emulation of the launch (the PTX is then replaced
// by plain copies and RUNNER_GEMM_EMULATE_MMA_F64 / RUNNER_GEMM_EMULATE_MMA_F64_16X8).
//
// The warp-level operation is D(16×8) += A(16×kMmaK)·B(kMmaK×8), kMmaK 8 or 16:
//  - sm_90+: one mma.sync.aligned.m16n8k8 / m16n8k16 .row.col.f64.f64.f64.f64 (PTX ISA 7.8), the
//    shapes that run at the full FP64 tensor rate on Hopper (m8n8k4 runs at about half of it);
//  - sm_80..sm_89: the same fragments fed to 4 (8) mma.sync.aligned.m8n8k4 f64.
// Fragment layouts (g = lane / 4, t = lane % 4), from the PTX ISA "Matrix Fragments for
// mma.m16n8k8 / m16n8k16" (.f64) and CUTLASS include/cute/atom/mma_traits_sm90.hpp
// (SM90_16x8x8_F64F64F64F64_TN: ALayout ((4,8),(2,2)):((16,1),(8,64)), BLayout
// ((4,8),2):((8,1),32), CLayout ((4,8),(2,2)):((32,1),(16,8)); SM90_16x8x16: ALayout
// ((4,8),(2,4)):((16,1),(8,64)), BLayout ((4,8),4):((8,1),32), same CLayout):
//    a[v0 + 2·v1] = A[g + 8·v0][t + 4·v1]   (v1 < kMmaK / 4)
//    b[v]         = B[t + 4·v][g]           (v  < kMmaK / 4)
//    c[v0 + 2·v1] = C[g + 8·v1][2t + v0]
//  m8n8k4: a = A[g][t], b = B[t][g], c[v] = C[g][2t + v].
// k is a summation index, so it may be relabelled as long as A and B agree: the instruction's k
// index t + 4·v1 is fed the actual k = 8·(v1 / 2) + 2t + v1 % 2. A lane's A values of one row are
// then pairs of consecutive k (one 16-byte shared load each), and its B values k-rows 2t, 2t + 1.
// Likewise n inside a pair of adjacent n-fragments (16 columns): fragment 2j's column g is actual
// column 2g, fragment 2j + 1's is 2g + 1, so one 16-byte load along n feeds both; a lane then ends
// up owning 4 consecutive columns 4t..4t + 3 of C (a 32-byte store).
//
// Block: kThreads = 32·(kBM / kWM)·(kBN / kWN) threads, tile kBM×kBN of C, k-steps of kBK.
//  - Shared memory, kStages stages filled by cp.async (zero-filled past m, n or k): 16-byte copies
//    where k and n are even and the pointers 16-byte aligned (kVec), 8-byte copies otherwise.
//    A tile kBM×kBK row-major, unpadded, with its 16-byte pairs XOR-swizzled by 4·(row & 1) so the
//    fragment loads (8 lanes of a quarter-warp: 2 rows × 4 pairs) hit 8 distinct bank groups;
//    B tile kBK×(kBN + 2) (the padding ≡ 2 mod 8 doubles makes its quarter-warp loads, 4 k-rows ×
//    2 pairs, conflict-free).
//  - Warps as (kBM / kWM)×(kBN / kWN), each computing kWM×kWN of C as (kWM / 16)×(kWN / 8)
//    fragments of 16×8.
//  - Blocks in groups of 8 tile rows, like regtile (tile_origin).
#include <cooperative_groups.h>

#include <cstddef>
#include <cstdint>

#include "kernels/common/cp_async.cuh"
#include "kernels/common/dependent_launch.cuh"
#include "kernels/gemm/gemm_regtile.cuh"  // tile_origin

namespace runner::kernels::gemm::dmma {

template <int BM, int BN, int BK, int WM, int WN, int Stages, int MmaK, int MinBlocks>
struct Config {
  static constexpr int kBM = BM, kBN = BN, kBK = BK, kWM = WM, kWN = WN, kStages = Stages;
  static constexpr int kMmaK = MmaK, kMinBlocks = MinBlocks;
  static constexpr int kWarpsM = kBM / kWM, kWarpsN = kBN / kWN;
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  static constexpr int kMI = kWM / 16, kNJ = kWN / 8, kKH = kMmaK / 8;
  static constexpr int kLdB = kBN + 2;  // doubles per k-row of the B tile
  static constexpr int kStageA = kBM * kBK;
  static constexpr int kStageDoubles = kStageA + kBK * kLdB;
  static constexpr std::size_t kSharedBytes = std::size_t{kStages} * kStageDoubles * sizeof(double);
  // Shared memory the split-K sum in a cluster needs: every thread's accumulators.
  static constexpr std::size_t kClusterSumBytes =
      std::size_t{kThreads} * kMI * kNJ * 4 * sizeof(double);

  static_assert(kMmaK == 8 || kMmaK == 16, "mma k is 8 or 16");
  static_assert(kBK % kMmaK == 0 && kBK % 8 == 0, "k-step must be a multiple of the mma k");
  static_assert(kBM % kWM == 0 && kBN % kWN == 0 && kWM % 16 == 0 && kWN % 16 == 0,
                "warp tile: multiples of 16 that divide the block tile");
  static_assert(kLdB % 8 == 2 && kStageA % 2 == 0 && kStageDoubles % 2 == 0,
                "16-byte alignment and the conflict-free B padding");
  // Tile loads: every thread the same number of copies.
  static_assert((kBM * kBK / 2) % kThreads == 0 && (kBK * kBN / 2) % kThreads == 0,
                "tile loads must divide evenly among the threads");
  static_assert(kThreads % (kBK / 2) == 0 && kThreads % (kBN / 2) == 0 && kThreads % kBK == 0 &&
                    kThreads % kBN == 0,
                "a thread copies one column of rows a fixed stride apart");
};

// The registered `dmma` variant's tiles: a k-step of 32 where the device lets a block have 194 KiB
// of shared memory (Hopper: 227 KiB), 16 elsewhere (99 KiB; an A100 allows 163 KiB). Measured on
// the H100 at 4096³ / 8192³ (docs/performance.md): 42.6 / 40.8 TFLOP/s with the k-step of 32,
// 38.6 / 38.0 with 16; cuBLAS DGEMM 59.0 / 54.9.
using DefaultConfig = Config<128, 128, 16, 64, 32, 3, 8, 1>;
using LargeSmemConfig = Config<128, 128, 32, 64, 32, 3, 8, 1>;

// d += a·b for one 8×8×4 fragment (warp-wide), mma.m8n8k4 layout (d0, d1 = C[g][2t], C[g][2t+1]).
__device__ __forceinline__ void mma_884(double& d0, double& d1, double a, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
      : "+d"(d0), "+d"(d1)
      : "d"(a), "d"(b));
#elif defined(RUNNER_GEMM_EMULATE_MMA_F64)
  RUNNER_GEMM_EMULATE_MMA_F64(d0, d1, a, b);
#else
  (void)d0, (void)d1, (void)a, (void)b;
#endif
}

// d += a·b for one 16×8×(8·kKH) fragment (warp-wide), in the (relabelled) layouts above.
template <int kKH>
__device__ __forceinline__ void mma_16x8(double (&d)[4], const double (&a)[4 * kKH],
                                         const double (&b)[2 * kKH]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (kKH == 1) {
    asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
  } else {
    asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
          "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
  }
#elif (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800) || defined(RUNNER_GEMM_EMULATE_MMA_F64)
  // a[4h + v0 + 2e] = A[g + 8·v0][8h + 2t + e], b[2h + e] = B[8h + 2t + e][g]: per half h and
  // parity e an m8n8k4 over the k of that parity, for rows g (v0 = 0) and g + 8 (v0 = 1).
#pragma unroll
  for (int h = 0; h < kKH; ++h) {
    mma_884(d[0], d[1], a[4 * h + 0], b[2 * h + 0]);
    mma_884(d[2], d[3], a[4 * h + 1], b[2 * h + 0]);
    mma_884(d[0], d[1], a[4 * h + 2], b[2 * h + 1]);
    mma_884(d[2], d[3], a[4 * h + 3], b[2 * h + 1]);
  }
#elif defined(RUNNER_GEMM_EMULATE_MMA_F64_16X8)
  RUNNER_GEMM_EMULATE_MMA_F64_16X8(d, a, b);
#else
  (void)d, (void)a, (void)b;
#endif
}

// Offset (doubles) of A-tile element (r, c): 16-byte pairs XOR-swizzled by 4·(r & 1).
__device__ __forceinline__ int a_offset(int r, int c, int bk) {
  return r * bk + ((((c >> 1) ^ ((r & 1) << 2))) << 1) + (c & 1);
}

template <typename Cfg, bool kVec>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    dmma_kernel(const double* __restrict__ a, const double* __restrict__ b, double* __restrict__ c,
                std::int64_t m, std::int64_t n, std::int64_t lda, std::int64_t tiles_m,
                std::int64_t tiles_n, std::int64_t k_chunk, int cluster_splits) {
  // Built for an arch without FP64 mma the body is empty; the host never launches it there
  // (compute capability < 8.0 is recorded skipped).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  constexpr int kBM = Cfg::kBM, kBN = Cfg::kBN, kBK = Cfg::kBK, kThreads = Cfg::kThreads;
  constexpr int kStages = Cfg::kStages, kLdB = Cfg::kLdB, kStageA = Cfg::kStageA;
  constexpr int kStageDoubles = Cfg::kStageDoubles;
  constexpr int kMI = Cfg::kMI, kNJ = Cfg::kNJ, kKH = Cfg::kKH, kMmaK = Cfg::kMmaK;

  extern __shared__ __align__(16) unsigned char dmma_shared[];
  double* const smem = reinterpret_cast<double*>(dmma_shared);

  const int tid = static_cast<int>(threadIdx.x);
  const regtile::TileOrigin tile = regtile::tile_origin(blockIdx.x, tiles_m, tiles_n, kBM, kBN);
  // Split-K (gemm_split_k.cuh): block row y computes k in [y·k_chunk, (y + 1)·k_chunk) into slice
  // y of c (the workspace), or, with cluster_splits > 1, into its accumulators, which the blocks of
  // the cluster add up and write to c (C), each its share of the rows; one split is the whole of k
  // into C. lda (the whole k) is A's row length, k the extent of this block's chunk (even where lda
  // is: k_chunk is whole k-steps).
  const std::int64_t k_begin = std::int64_t{blockIdx.y} * k_chunk;
  const std::int64_t k = lda - k_begin < k_chunk ? lda - k_begin : k_chunk;
  a += k_begin;
  b += k_begin * n;
  if (cluster_splits <= 1) c += std::int64_t{blockIdx.y} * m * n;

  // Tile loads, a thread copying kW doubles at column a_c (b_c) of rows a_r0 (b_r0) + i·stride.
  constexpr int kW = kVec ? 2 : 1;
  constexpr int kAPerRow = kBK / kW, kBPerRow = kBN / kW;
  constexpr int kAStride = kThreads / kAPerRow, kBStride = kThreads / kBPerRow;
  constexpr int kACopies = kBM / kAStride, kBCopies = kBK / kBStride;
  const int a_c = (tid % kAPerRow) * kW, a_r0 = tid / kAPerRow;
  const int b_c = (tid % kBPerRow) * kW, b_r0 = tid / kBPerRow;
  const std::int64_t b_col = tile.col0 + b_c;
  const bool b_col_in = b_col < n;  // kVec: n even and b_col even, so b_col + 1 < n too
  const std::int64_t k_tiles = (k + kBK - 1) / kBK;

  auto load_tile = [&](int stage, std::int64_t kt) {
    double* const as = smem + stage * kStageDoubles;
    double* const bs = as + kStageA;
    const std::int64_t p0 = kt * kBK;
    const bool a_k_in = p0 + a_c < k;  // kVec: k even, so p0 + a_c + 1 < k too
#pragma unroll
    for (int i = 0; i < kACopies; ++i) {
      const int r = a_r0 + kAStride * i;
      const std::int64_t row = tile.row0 + r;
      const bool in = a_k_in && row < m;
      cp_async_zfill<8 * kW>(as + a_offset(r, a_c, kBK), in ? a + row * lda + p0 + a_c : a, in);
    }
#pragma unroll
    for (int i = 0; i < kBCopies; ++i) {
      const int r = b_r0 + kBStride * i;
      const std::int64_t krow = p0 + r;
      const bool in = b_col_in && krow < k;
      cp_async_zfill<8 * kW>(bs + r * kLdB + b_c, in ? b + krow * n + b_col : b, in);
    }
  };

  const int warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;
  const int wm = (warp / Cfg::kWarpsN) * Cfg::kWM, wn = (warp % Cfg::kWarpsN) * Cfg::kWN;
  double acc[kMI][kNJ][4];
#pragma unroll
  for (int i = 0; i < kMI; ++i) {
#pragma unroll
    for (int j = 0; j < kNJ; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.0;
  }
  // This lane's fragment addresses inside a stage (doubles). A: row wm + 16i + g (+ 8), pair
  // 4q + t of the row (q = k-half of 8), swizzled: the row parity is g's, so the pair is
  // (4q + t) ^ 4(g & 1) = 4(q ^ (g & 1)) + t. B: k-row 2t (+ 1), columns wn + 16jj + 2g (+ 1).
  const int a_lane = (wm + g) * kBK + 2 * t;
  const int a_flip = (g & 1) * 8;  // doubles: the pair of k-half q sits at 8·(q ^ (g & 1))
  const int b_lane = kStageA + 2 * t * kLdB + wn + 2 * g;

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

    const double* const st = smem + read_stage * kStageDoubles;
#pragma unroll
    for (int ks = 0; ks < kBK; ks += kMmaK) {
      double af[kMI][4 * kKH], bf[kNJ][2 * kKH];
#pragma unroll
      for (int h = 0; h < kKH; ++h) {
        const int q = (ks / 8) + h;  // k-half of 8 inside the tile
        const int a_half = (q & ~1) * 8 + ((q & 1) * 8 ^ a_flip);
#pragma unroll
        for (int i = 0; i < kMI; ++i) {
#pragma unroll
          for (int v0 = 0; v0 < 2; ++v0) {
            const double2 p =
                *reinterpret_cast<const double2*>(st + a_lane + (16 * i + 8 * v0) * kBK + a_half);
            af[i][4 * h + v0] = p.x;      // k = 8q + 2t
            af[i][4 * h + v0 + 2] = p.y;  // k = 8q + 2t + 1
          }
        }
#pragma unroll
        for (int jj = 0; jj < kNJ / 2; ++jj) {
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const double2 p =
                *reinterpret_cast<const double2*>(st + b_lane + (8 * q + e) * kLdB + 16 * jj);
            bf[2 * jj][2 * h + e] = p.x;      // column 2g of the pair
            bf[2 * jj + 1][2 * h + e] = p.y;  // column 2g + 1
          }
        }
      }
#pragma unroll
      for (int i = 0; i < kMI; ++i)
#pragma unroll
        for (int j = 0; j < kNJ; ++j) mma_16x8<kKH>(acc[i][j], af[i], bf[j]);
    }
    read_stage = read_stage == kStages - 1 ? 0 : read_stage + 1;
  }
  cp_async_wait<0>();  // nothing real is in flight here; leaves no copy pending at exit
  // The split-K reduction may be placed beside this block's stores (dependent_launch.cuh).
  allow_dependent_launch();

  // Split-K summed in the cluster (1, cluster_splits, 1) of this tile's splits (SplitK in
  // gemm_split_k.cuh; the host checks that every thread's accumulators fit in the stages and that
  // cluster_splits <= kMI). Every block puts its partial tile in its shared memory, accumulator
  // (i, j, v) of thread tid at ((i·kNJ + j)·4 + v)·kThreads + tid (consecutive threads,
  // consecutive words); block r then adds, for its rows of fragments i ≡ r (mod cluster_splits),
  // the cluster's partial tiles in split order (the reduction kernel's sum: 0 + s₀ + s₁ + ...)
  // and stores them. Every block reads and writes 1 / cluster_splits of the tile.
  int sum_rank = 0;  // this block's share of the fragment rows (with cluster_splits > 1)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (cluster_splits > 1) {
    namespace cg = cooperative_groups;
    const cg::cluster_group cluster = cg::this_cluster();
    __syncthreads();  // every warp has read its last stage: the stages now hold the exchange
    sum_rank = static_cast<int>(cluster.block_rank());  // = blockIdx.y, the split
    auto slot = [tid](int i, int j, int v) { return ((i * kNJ + j) * 4 + v) * kThreads + tid; };
#pragma unroll
    for (int i = 0; i < kMI; ++i)
#pragma unroll
      for (int j = 0; j < kNJ; ++j)
#pragma unroll
        for (int v = 0; v < 4; ++v) smem[slot(i, j, v)] = acc[i][j][v];
    cluster.sync();  // the partial tiles are in shared memory, visible to the cluster
#pragma unroll
    for (int i = 0; i < kMI; ++i) {
      if (i % cluster_splits != sum_rank) continue;
#pragma unroll
      for (int j = 0; j < kNJ; ++j)
#pragma unroll
        for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0;
      for (int r = 0; r < cluster_splits; ++r) {
        const double* const part = cluster.map_shared_rank(smem, r);
#pragma unroll
        for (int j = 0; j < kNJ; ++j)
#pragma unroll
          for (int v = 0; v < 4; ++v) acc[i][j][v] += part[slot(i, j, v)];
      }
    }
    cluster.sync();  // a block's shared memory must outlive the others' reads of it
  }
#endif

  // Lane (g, t) holds, of fragment pair jj, rows g + 8·v1, columns 16jj + 4t + {0, 1, 2, 3} =
  // acc[i][2jj][2v1], acc[i][2jj + 1][2v1], acc[i][2jj][2v1 + 1], acc[i][2jj + 1][2v1 + 1].
#pragma unroll
  for (int i = 0; i < kMI; ++i) {
    if (cluster_splits > 1 && i % cluster_splits != sum_rank) continue;  // another block's rows
#pragma unroll
    for (int v1 = 0; v1 < 2; ++v1) {
      const std::int64_t row = tile.row0 + wm + 16 * i + 8 * v1 + g;
      if (row >= m) continue;
      double* const c_row = c + row * n;
#pragma unroll
      for (int jj = 0; jj < kNJ / 2; ++jj) {
        const std::int64_t col = tile.col0 + wn + 16 * jj + 4 * t;
        const double v[4] = {acc[i][2 * jj][2 * v1], acc[i][2 * jj + 1][2 * v1],
                             acc[i][2 * jj][2 * v1 + 1], acc[i][2 * jj + 1][2 * v1 + 1]};
        if constexpr (kVec) {  // n even, col even: a pair is wholly inside or outside
          if (col < n) *reinterpret_cast<double2*>(c_row + col) = double2{v[0], v[1]};
          if (col + 2 < n) *reinterpret_cast<double2*>(c_row + col + 2) = double2{v[2], v[3]};
        } else {
#pragma unroll
          for (int x = 0; x < 4; ++x)
            if (col + x < n) c_row[col + x] = v[x];
        }
      }
    }
  }
#endif
}

}  // namespace runner::kernels::gemm::dmma
