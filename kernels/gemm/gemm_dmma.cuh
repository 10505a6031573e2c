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
// The instruction's k index is the tile's k (identity), and every fragment value is loaded by its
// own 8-byte shared load straight into the register the mma reads: the operand tuples are
// consecutive registers, so a 16-byte load holding two values of different tuples (a row's k and
// k + 1, or two adjacent columns) costs register moves before every mma (measured: 16 moves an
// mma, 2.9 times cuBLAS's instructions per mma, 66 % of the FP64 tensor pipe against its 95 %).
//
// Block: kThreads = 32·(kBM / kWM)·(kBN / kWN) threads, tile kBM×kBN of C, k-steps of kBK.
//  - Shared memory, kStages stages filled by cp.async (zero-filled past m, n or k): 16-byte copies
//    where A's and B's rows are an even number of doubles apart (lda, ldb: k and n, or the padded
//    copies of gemm_padded_operands.cuh) and the pointers 16-byte aligned (kVec), 8-byte copies
//    otherwise. A pair reaching past k or n reads the row's padding: zeros, which meet B's rows
//    past k (zero-filled) or land in C's columns past n (dropped). A tile kBM×kBK row-major,
//    unpadded, column c of row r stored at c ^ 4·(r & 3) (a_offset): the fragment loads of a
//    half-warp (rows g = 0..3 or 4..7, k = t + const, t = 0..3) then hit 16 distinct 8-byte bank
//    pairs, and the XOR keeps every 16-byte pair whole for the copies. B tile kBK×(kBN + 4) (the
//    padding ≡ 4 mod 16 doubles puts a half-warp's 4 k-rows × 4 columns on 16 distinct bank pairs).
//  - Warps as (kBM / kWM)×(kBN / kWN), each computing kWM×kWN of C as (kWM / 16)×(kWN / 8)
//    fragments of 16×8; a lane ends up owning 2 consecutive columns 2t, 2t + 1 of each fragment
//    row (a 16-byte store where C's rows, ldc doubles apart, are too: n even, or the split-K
//    workspace's padded rows).
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
  // The 8-byte-copy instance double-buffers its fragments too (see the kernel): where a warp's
  // accumulators are at most 8 fragments (64 registers), so that the copies' addresses still fit.
  static constexpr bool kScalarDoubleBuffered = kMI * kNJ <= 8;
  static constexpr int kLdB = kBN + 4;  // doubles per k-row of the B tile
  static constexpr int kStageA = kBM * kBK;
  static constexpr int kStageDoubles = kStageA + kBK * kLdB;
  static constexpr std::size_t kSharedBytes = std::size_t{kStages} * kStageDoubles * sizeof(double);
  // Shared memory the split-K sum in a cluster needs: every thread's accumulators.
  static constexpr std::size_t kClusterSumBytes =
      std::size_t{kThreads} * kMI * kNJ * 4 * sizeof(double);

  static_assert(kMmaK == 8 || kMmaK == 16, "mma k is 8 or 16");
  static_assert(kStages >= 2, "a stage computed while the next one lands");
  static_assert(kBK % kMmaK == 0 && kBK % 8 == 0, "k-step must be a multiple of the mma k");
  static_assert(kBM % kWM == 0 && kBN % kWN == 0 && kWM % 16 == 0 && kWN % 8 == 0,
                "warp tile: multiples of the fragment that divide the block tile");
  static_assert(kBK % 16 == 0, "the A swizzle permutes k within groups of 16");
  static_assert(kLdB % 16 == 4 && kStageA % 2 == 0 && kStageDoubles % 2 == 0,
                "16-byte alignment and the conflict-free B padding");
  // Tile loads: every thread the same number of copies.
  static_assert((kBM * kBK / 2) % kThreads == 0 && (kBK * kBN / 2) % kThreads == 0,
                "tile loads must divide evenly among the threads");
  static_assert(kThreads % (kBK / 2) == 0 && kThreads % (kBN / 2) == 0 && kThreads % kBK == 0 &&
                    kThreads % kBN == 0,
                "a thread copies one column of rows a fixed stride apart");
};

// The registered `dmma` variant's tiles: a k-step of 32 where the device lets a block have 195 KiB
// of shared memory (Hopper: 227 KiB), 16 elsewhere (98 KiB; an A100 allows 163 KiB). m16n8k8,
// not m16n8k16: the double-buffered fragments of the k16 shape take 96 more registers and spill
// (docs/performance.md, log). Measured on an H200 at 4096³ / 8192³: 92.6–95.7 / 93.2 % of cuBLAS
// DGEMM in the same run (the k-step of 16: 87.5–94.5 / 90.4–90.7 %).
using DefaultConfig = Config<128, 128, 16, 64, 32, 3, 8, 1>;
using LargeSmemConfig = Config<128, 128, 32, 64, 32, 3, 8, 1>;
// The tiles of problems too small to fill the GPU with 128×128 ones (512³ is 16 of them, 1200³
// 100 for 132 SMs): 64×64, four warps of 32×32, four stages of a k-step of 16 (66 KiB of shared
// memory, so that several blocks share an SM). cuBLAS DGEMM picks tiles of this size there too
// (Nsight Compute, H200: 361 blocks at 1200³, 128 of 32×64 at 512³). Three stages of 32 (99 KiB)
// ran 2 to 15 points of cuBLAS behind it from 256³ to 2000³ (H200, docs/performance.md, Log);
// 8 warps of 32×16, 32×64 and 64×32 tiles lost too.
using SmallTileConfig = Config<64, 64, 16, 32, 32, 4, 8, 2>;

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
  // a[4h + v0 + 2e] = A[g + 8·v0][8h + 4e + t], b[2h + e] = B[8h + 4e + t][g]: per half h and
  // quarter e an m8n8k4 over k 8h + 4e + (0..3), for rows g (v0 = 0) and g + 8 (v0 = 1).
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

// Offset (doubles) of A-tile element (r, c): column c stored at c ^ 4·(r & 3).
__device__ __forceinline__ int a_offset(int r, int c, int bk) {
  return r * bk + (c ^ ((r & 3) << 2));
}

template <typename Cfg, bool kVec>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    dmma_kernel(const double* __restrict__ a, const double* __restrict__ b, double* __restrict__ c,
                std::int64_t m, std::int64_t n, std::int64_t k_total, std::int64_t lda,
                std::int64_t ldb, std::int64_t ldc, std::int64_t tiles_m, std::int64_t tiles_n,
                std::int64_t k_chunk, int cluster_splits) {
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
  // into C. k is the extent of this block's chunk (k_chunk is whole k-steps).
  const std::int64_t k_begin = std::int64_t{blockIdx.y} * k_chunk;
  const std::int64_t k = k_total - k_begin < k_chunk ? k_total - k_begin : k_chunk;
  a += k_begin;
  b += k_begin * ldb;
  if (cluster_splits <= 1) c += std::int64_t{blockIdx.y} * m * ldc;

  // Tile loads, a thread copying kW doubles at column a_c (b_c) of rows a_r0 (b_r0) + i·stride.
  constexpr int kW = kVec ? 2 : 1;
  constexpr int kAPerRow = kBK / kW, kBPerRow = kBN / kW;
  constexpr int kAStride = kThreads / kAPerRow, kBStride = kThreads / kBPerRow;
  constexpr int kACopies = kBM / kAStride, kBCopies = kBK / kBStride;
  const int a_c = (tid % kAPerRow) * kW, a_r0 = tid / kAPerRow;
  const int b_c = (tid % kBPerRow) * kW, b_r0 = tid / kBPerRow;
  const std::int64_t b_col = tile.col0 + b_c;
  const bool b_col_in = b_col < n;  // kVec: b_col + 1 < ldb (in the padding where it is n)
  const std::int64_t k_tiles = (k + kBK - 1) / kBK;
  // Copy i of a tile reads A at a_first + i·a_step (+ kBK a tile), B at b_first + i·b_step
  // (+ kBK·ldb a tile): two offsets and two strides a thread, not one address a copy, so that the
  // registers stay with the accumulators and the double-buffered fragments. Bit i of a_rows_in:
  // row a_r0 + i·kAStride of the tile is inside A.
  const std::int64_t a_first = (tile.row0 + a_r0) * lda + a_c, a_step = kAStride * lda;
  const std::int64_t b_first = std::int64_t{b_r0} * ldb + b_col, b_step = kBStride * ldb;
  unsigned a_rows_in = 0;
#pragma unroll
  for (int i = 0; i < kACopies; ++i)
    a_rows_in |= static_cast<unsigned>(tile.row0 + a_r0 + kAStride * i < m) << i;
  static_assert(kACopies <= 32, "one bit a copy");

  auto load_tile = [&](int stage, std::int64_t kt) {
    double* const as = smem + stage * kStageDoubles;
    double* const bs = as + kStageA;
    const std::int64_t p0 = kt * kBK;
    const bool a_k_in = p0 + a_c < k;  // kVec: p0 + a_c + 1 < lda (past k: the padding's zero)
    const std::int64_t a_tile = a_first + p0, b_tile = b_first + p0 * ldb;
    // k-rows of B left from this thread's first (≤ 0: none), capped at the tile.
    const std::int64_t b_left64 = k - p0 - b_r0;
    const int b_left = b_left64 < kBK ? static_cast<int>(b_left64) : kBK;
#pragma unroll
    for (int i = 0; i < kACopies; ++i) {
      const bool in = a_k_in && (a_rows_in >> i & 1u);
      cp_async_zfill<8 * kW>(as + a_offset(a_r0 + kAStride * i, a_c, kBK),
                             a + (in ? a_tile + i * a_step : 0), in);
    }
#pragma unroll
    for (int i = 0; i < kBCopies; ++i) {
      const bool in = b_col_in && kBStride * i < b_left;
      cp_async_zfill<8 * kW>(bs + (b_r0 + kBStride * i) * kLdB + b_c,
                             b + (in ? b_tile + i * b_step : 0), in);
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
  // This lane's fragment addresses inside a stage (doubles). A: a[4h + v0 + 2v1] is row
  // wm + 16i + 8v0 + g, column c = ks + 8h + 4v1 + t; the swizzle (a_offset) moves only bits 2–3
  // of c by the row's g & 3, so the lane's four offsets for c & 12 = 0, 4, 8, 12 (row wm + g)
  // plus a compile-time (c & ~15) + (16i + 8v0)·kBK give every one.
  // B: b[2h + v] is k-row ks + 8h + 4v + t, column wn + 8j + g.
  int a_lane[4];
#pragma unroll
  for (int u = 0; u < 4; ++u) a_lane[u] = a_offset(wm + g, 4 * u + t, kBK);
  const int b_lane = kStageA + t * kLdB + wn + g;

  // The fragments of k-columns ks..ks + kMmaK − 1 of a stage, and the warp's mmas on them.
  using AFragments = double[kMI][4 * kKH];
  using BFragments = double[kNJ][2 * kKH];
  auto load_fragments = [&](const double* st, int ks, AFragments& af, BFragments& bf) {
#pragma unroll
    for (int h = 0; h < kKH; ++h) {
#pragma unroll
      for (int v1 = 0; v1 < 2; ++v1) {
        const int c4 = ks + 8 * h + 4 * v1;  // the fragment's first k in the tile
#pragma unroll
        for (int i = 0; i < kMI; ++i)
#pragma unroll
          for (int v0 = 0; v0 < 2; ++v0)
            af[i][4 * h + v0 + 2 * v1] =
                st[a_lane[(c4 >> 2) & 3] + (c4 & ~15) + (16 * i + 8 * v0) * kBK];
#pragma unroll
        for (int j = 0; j < kNJ; ++j) bf[j][2 * h + v1] = st[b_lane + c4 * kLdB + 8 * j];
      }
    }
  };
  auto mma_all = [&](const AFragments& af, const BFragments& bf) {
#pragma unroll
    for (int i = 0; i < kMI; ++i)
#pragma unroll
      for (int j = 0; j < kNJ; ++j) mma_16x8<kKH>(acc[i][j], af[i], bf[j]);
  };

  // Prologue: the first kStages − 1 tiles in flight, one commit group each (empty groups past the
  // end keep the count uniform).
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < k_tiles) load_tile(s, s);
    cp_async_commit();
  }
  int read_stage = 0, write_stage = kStages - 1;
  if constexpr (!kVec && !Cfg::kScalarDoubleBuffered) {
    // The 8-byte-copy instance (k or n odd, or a matrix not 16-byte aligned) issues 32 copies a
    // thread per tile; with a second fragment buffer it spills inside the loop (13 local loads a
    // tile; 82–86 % of cuBLAS at 4095 × 4097 × 4099 against 93–97 % single-buffered, H200), so it
    // loads each group's fragments just before its mmas and meets the barrier at the tile's start.
    // (A tile with half the accumulators, SmallTileConfig, has the registers for both.)
    for (std::int64_t kt = 0; kt < k_tiles; ++kt) {
      // kStages − 1 + kt groups committed; with at most kStages − 2 pending, tiles 0..kt have
      // landed (this thread's copies); the barrier makes every thread's visible, and also ends
      // the reads of the stage about to be refilled (the one read in step kt − 1).
      cp_async_wait<kStages - 2>();
      __syncthreads();
      if (kt + kStages - 1 < k_tiles) load_tile(write_stage, kt + kStages - 1);
      cp_async_commit();
      write_stage = write_stage == kStages - 1 ? 0 : write_stage + 1;
      const double* const st = smem + read_stage * kStageDoubles;
#pragma unroll
      for (int ks = 0; ks < kBK; ks += kMmaK) {
        AFragments af;
        BFragments bf;
        load_fragments(st, ks, af, bf);
        mma_all(af, bf);
      }
      read_stage = read_stage == kStages - 1 ? 0 : read_stage + 1;
    }
  } else {
    // Tile 0 landed and visible, its first fragments in registers (below).
    cp_async_wait<kStages - 2>();
    __syncthreads();
    // Fragments double-buffered in registers: the loads of k-group w + 1 are issued before the mmas
    // of group w, so the tensor pipe does not wait for shared memory, across tiles too: the barrier
    // that makes tile kt + 1 visible comes before the last group of tile kt, whose fragments are
    // already in registers, and tile kt + 1's first fragments are loaded before the last mmas of
    // tile kt (after the last tile, from a stage nothing uses). Single-buffered, with the barrier
    // at a tile's start, the pipe drained at every tile: Nsight Compute at 4096³ (H200) saw the
    // FP64 tensor pipe busy 70 % of the time single-buffered, 81 % double-buffered (cuBLAS 95 %).
    constexpr int kGroups = kBK / kMmaK;  // k-groups of a tile
    static_assert(kGroups % 2 == 0, "the fragment buffers alternate across tiles");
    AFragments af[2];
    BFragments bf[2];
    load_fragments(smem, 0, af[0], bf[0]);
    for (std::int64_t kt = 0; kt < k_tiles; ++kt) {
#pragma unroll
      for (int w = 0; w < kGroups; ++w) {
        if (w == kGroups - 1) {
          // kStages − 1 + kt + 1 groups committed (tiles 0..kt + kStages − 1); with at most
          // kStages − 2 pending, tiles 0..kt + 1 have landed (this thread's copies). The barrier
          // makes every thread's visible, and ends every warp's reads of tile kt's stage (its last
          // fragments were loaded in group kGroups − 2), which step kt + 1 refills.
          cp_async_wait<kStages - 2>();
          __syncthreads();
          read_stage = read_stage == kStages - 1 ? 0 : read_stage + 1;
        }
        // The next group's fragments: of this tile, or the first of the next one.
        load_fragments(smem + read_stage * kStageDoubles, (w + 1) % kGroups * kMmaK,
                       af[(w + 1) % 2], bf[(w + 1) % 2]);
        mma_all(af[w % 2], bf[w % 2]);
        if (w == 0) {
          // Tile kt + kStages − 1 into the stage of tile kt − 1, free since the barrier of step
          // kt − 1; issued after this group's mmas, which the tensor pipe works through meanwhile.
          if (kt + kStages - 1 < k_tiles) load_tile(write_stage, kt + kStages - 1);
          cp_async_commit();
          write_stage = write_stage == kStages - 1 ? 0 : write_stage + 1;
        }
      }
    }
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

  // Lane (g, t) holds, of fragment (i, j), rows g + 8·v1, columns 8j + 2t + {0, 1} =
  // acc[i][j][2v1], acc[i][j][2v1 + 1]: one 16-byte store where that row of C starts on a 16-byte
  // boundary (C aligned, kVec): every row where ldc is even, the even rows where it is odd (C
  // itself with n odd; col is even), two 8-byte stores elsewhere. (With every store scalar where
  // ldc was odd, the kernel ran 9 % slower at 1023³ than at 1024³ on an H200.)
  const bool even_ld = kVec && ldc % 2 == 0;
#pragma unroll
  for (int i = 0; i < kMI; ++i) {
    if (cluster_splits > 1 && i % cluster_splits != sum_rank) continue;  // another block's rows
#pragma unroll
    for (int v1 = 0; v1 < 2; ++v1) {
      const std::int64_t row = tile.row0 + wm + 16 * i + 8 * v1 + g;
      if (row >= m) continue;
      double* const c_row = c + row * ldc;
      const bool row_pairs = even_ld || (kVec && row % 2 == 0);
#pragma unroll
      for (int j = 0; j < kNJ; ++j) {
        const std::int64_t col = tile.col0 + wn + 8 * j + 2 * t;
        const double lo = acc[i][j][2 * v1], hi = acc[i][j][2 * v1 + 1];
        // Even ldc: col + 1 < ldc (in the padding where it is n); odd: the pair must stay in n.
        if (row_pairs && (even_ld ? col < n : col + 1 < n)) {
          *reinterpret_cast<double2*>(c_row + col) = double2{lo, hi};
        } else {
          if (col < n) c_row[col] = lo;
          if (col + 1 < n) c_row[col + 1] = hi;
        }
      }
    }
  }
#endif
}

}  // namespace runner::kernels::gemm::dmma
