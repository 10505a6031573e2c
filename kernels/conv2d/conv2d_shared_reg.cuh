#pragma once
// Device code of the conv2d `shared_reg` variant (conv2d_shared_reg.cu, which describes the
// scheme), in a header so that a tuning candidate registered as its own variant can instantiate the
// same templates (docs/performance.md, "Log").
//
// A block of 256 threads, BX across and 256 / BX down, computes a (4 · BX)-column ×
// (256 / BX · ROWS)-row output tile; each thread a ROWS × 4 patch (ROWS rows of 4 adjacent
// columns) in registers. BX = 32 (tiles of 128 columns × 32 rows at ROWS = 4) serves most images;
// narrow ones get tiles of their own shape (BX = 8: 32 × 128, BX = 64: 256 × 16), so that a
// 32-column or 16-row image does not compute a tile 4 or 2 times its size. The tiles' geometry,
// shared with the host code that sizes the launches, is in conv2d_shared_reg_tiles.hpp. (A warp's
// 16-byte shared loads are served 8 threads at a time: with BX ≥ 8 those 8 read one row's
// consecutive vectors, free of bank conflicts.) Going down its patch, a thread reads every tile row
// under it once (its window, as float4s) and feeds it to all the (output row, filter row) pairs
// that use it.
//
// The grid covers the tiles (2-D, tile rows beyond gridDim.y looped over); each block copies its
// tile with cp.async — every copy of a thread issued before any is waited for, so a thread has
// its whole share of the tile in flight at once — waits, and computes. Every copy is a whole
// 16-byte vector and every store of a thread's 4 outputs one float4, whatever n is: an instance
// per n mod 4 compiles in where each row's vectors start (row_shift / out_shift below). What this
// replaced, measured on an H200 (docs/performance.md, log): plain loads, each into a register
// and then a shared store, kept one load in flight a thread (74–79 % of the copy kernel at 8192²,
// k = 3 and 5; cp.async 88–91 %); where n % 4 != 0 every vector was four 4-byte copies and every
// output a 4-byte store (57–75 % at 8191 × 8193; now 94–97 %).
//
// The filter lives in constant memory, c_weights_reg, one copy per translation unit that includes
// this header (no relocatable device code): fill it with cudaMemcpyToSymbol from that unit.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/common/cp_async.cuh"
#include "kernels/conv2d/conv2d_shared_reg_tiles.hpp"

namespace runner::kernels::conv2d::shared_reg {

inline constexpr int kMaxFilter = 31;  // = kMaxKernelSize of conv2d_problem.hpp

namespace {
__constant__ float c_weights_reg[kMaxFilter * kMaxFilter];
}  // namespace

// Rows of a length n that is not a multiple of 4 start at every offset from a 16-byte boundary.
// Both the copies and the stores stay whole, aligned 16-byte vectors all the same:
// - Tile row t holds, from position 0, image row row0 − r + t from column
//   col0 − H − margin − row_shift(t): the 16-byte boundary at or before col0 − H − margin.
//   That shift is the column's index mod 4, (row0 − r + t) · n mod 4 (col0 − H − margin is a
//   multiple of 4), which for row0 ≡ 0 (mod 4) — tiles are 256 / BX · ROWS rows, a multiple of 4
//   — depends on t, r and n mod 4 alone.
// - A thread's output row rr (image row i ≡ rr mod 4, as ty · ROWS ≡ 0) covers columns
//   j − out_shift(rr) .. + 3 instead of j .. j + 3, j = col0 + 4 · tx: i · n + j − out_shift(rr)
//   is then a multiple of 4. The tile's outputs of that row are columns col0 − out_shift ..
//   col0 + 4 · BX − 1; the grid has a tile more where n is within 3 of a multiple of the tile
//   width to reach the last column.
// Both shifts are compile-time constants in the unrolled compute loop (of the instance for n % 4),
// so a thread reads its window of a shifted row with aligned float4 loads and constant register
// indices: the same code as for aligned rows, at other offsets. (An image buffer starts on a
// 16-byte boundary, as cudaMalloc's do.)
__host__ __device__ constexpr int row_shift(int t, int r, int n_mod4) {
  return ((t - r) * n_mod4) & 3;
}
__host__ __device__ constexpr int out_shift(int rr, int n_mod4) {
  return (rr * n_mod4) & 3;
}
// The image column at position 0 of a tile row before its shift: a multiple of 4.
__host__ __device__ constexpr int tile_first_column(int col0, int r, int n_mod4) {
  return col0 - halo_cols(r) - left_margin(n_mod4);
}

// One 16-byte slot of a tile row: the image vector of row x, columns y .. y + 3, at index `at`.
// In a tile wholly inside the image (kInterior) it is copied as it is; elsewhere zeros stand for
// what lies outside, and a vector that straddles the image's left or right edge (only in the
// first and last tile columns) is copied element by element.
template <bool kInterior>
__device__ __forceinline__ void copy_slot(float* dst, const float* __restrict__ in, std::int64_t at,
                                          int x, int y, int m, int n) {
  if constexpr (kInterior) {
    cp_async_zfill<16>(dst, in + at, true);
  } else {
    const bool row_in = x >= 0 && x < m, full = y >= 0 && y + 4 <= n;
    if (row_in && !full && y + 4 > 0 && y < n) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const bool inside = y + e >= 0 && y + e < n;
        cp_async_zfill<4>(dst + e, inside ? in + at + e : in, inside);
      }
    } else {
      const bool inside = row_in && full;
      cp_async_zfill<16>(dst, inside ? in + at : in, inside);
    }
  }
}

// The whole block copies the tile at (row0, col0) with cp.async, committed as one group; the
// caller waits for it. A row is BX to BX + 10 slots of 16 bytes. Thread row y (threadIdx.y)
// copies the first BX slots of tile rows y, y + BY, … (BY = 256 / BX), a slot a thread: those
// rows share their shift (BY · n ≡ 0 mod 4), so going down adds BY · n to the source and BY rows
// to the destination, with no division and no column test a row. The slots beyond BX of all rows
// are then shared out over the block. A tile wholly inside the image (kInterior: all but the
// image's border tiles) copies without a bounds test at all; the others zero-fill what lies
// outside.
template <int BX, int KS, int ROWS, int NMOD4, bool kInterior>
__device__ __forceinline__ void load_tile(float* tile, const float* __restrict__ in, int m, int n,
                                          int row0, int col0) {
  constexpr int r = KS / 2, pitch = row_pitch(BX, r, NMOD4), slots = pitch / 4;
  constexpr int by = block_y(BX);
  constexpr int rows = tile_height(BX, ROWS) + 2 * r, steps = (rows + by - 1) / by;
  constexpr int extra = slots - BX, extra_slots = rows * extra;
  static_assert(by % 4 == 0, "rows BY apart must share their shift");
  static_assert(extra >= 0 && extra <= 10);
  const int col_first = tile_first_column(col0, r, NMOD4);
  const int lane = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  {
    const int y = col_first - row_shift(ty, r, NMOD4) + 4 * lane;  // the thread's first column
    int x = row0 - r + ty;                                         // image row of tile row `ty`
    std::int64_t at = static_cast<std::int64_t>(x) * n + y;
    float* dst = tile + ty * pitch + 4 * lane;
#pragma unroll
    for (int step = 0; step < steps; ++step) {
      if ((step + 1) * by <= rows || step * by + ty < rows)
        copy_slot<kInterior>(dst, in, at, x, y, m, n);
      x += by;
      at += static_cast<std::int64_t>(by) * n;
      dst += by * pitch;
    }
  }
  if constexpr (extra > 0) {
    const int first = lane + BX * ty;
#pragma unroll
    for (int q = 0; q < (extra_slots + kThreads - 1) / kThreads; ++q) {
      const int idx = first + q * kThreads;
      if (idx < extra_slots) {
        const int t = idx / extra, slot = BX + idx % extra;  // extra is even, ≤ 10
        const int y = col_first - row_shift(t, r, NMOD4) + 4 * slot, x = row0 - r + t;
        copy_slot<kInterior>(tile + t * pitch + 4 * slot, in, static_cast<std::int64_t>(x) * n + y,
                             x, y, m, n);
      }
    }
  }
  cp_async_commit();
}

// Whether the tile at (row0, col0) lies wholly inside the image, shifts and halos included.
template <int BX, int KS, int ROWS, int NMOD4>
__device__ __forceinline__ bool tile_inside(int m, int n, int row0, int col0) {
  constexpr int r = KS / 2;
  const int col_first = tile_first_column(col0, r, NMOD4);
  // col_first > 0 is ≥ 4, so also every row's first column col_first − shift ≥ 0.
  return row0 >= r && row0 + tile_height(BX, ROWS) + r <= m && col_first > 0 &&
         col_first + row_pitch(BX, r, NMOD4) <= n;
}

// The largest filter whose taps compute_store unrolls whole; wider ones loop over filter rows.
inline constexpr int kMaxUnrolled = 15;

// Tile row ty·ROWS + ir holds image row row0 + ty·ROWS + ir − r: filter row a = ir − rr of output
// row rr. From the thread's offset kCols·tx, position p of that row holds image column
// j − hc − margin − s + p (s = row_shift(ir)): tap b of output column j − so + c (so =
// out_shift(rr)) is at p = margin + s − so + hc − r + c + b. The thread reads the float4s over the
// p that any of its rows needs (so from 0 to 3 where rows are shifted), from v0 on, into
// registers: window_tap0 is where tap 0 of output row rr's column 0 lands there. Every argument
// is a compile-time constant in the unrolled loops that call these.
__host__ __device__ constexpr int window_p0(int ks, int n_mod4, int s) {
  return left_margin(n_mod4) + s + halo_cols(ks / 2) - ks / 2;
}
__host__ __device__ constexpr int window_v0(int ks, int n_mod4, int s) {
  return (window_p0(ks, n_mod4, s) - max_out_shift(n_mod4)) / 4;
}
__host__ __device__ constexpr int window_tap0(int ks, int n_mod4, int s, int rr) {
  return window_p0(ks, n_mod4, s) - out_shift(rr, n_mod4) - 4 * window_v0(ks, n_mod4, s);
}
template <int KS>
inline constexpr int kWindowFloats = 4 * ((KS + 16) / 4);  // ≥ the float4s v0 .. v1, KS ≤ 31

// Reads the window of the tile row at `row`, of shift s, into w.
template <int KS, int NMOD4>
__device__ __forceinline__ void load_window(const float* row, int s,
                                            float (&w)[kWindowFloats<KS>]) {
  const int v0 = window_v0(KS, NMOD4, s), v1 = (window_p0(KS, NMOD4, s) + kCols + KS - 2) / 4;
#pragma unroll
  for (int v = v0; v <= v1; ++v) {
    const float4 f = *reinterpret_cast<const float4*>(row + 4 * v);
    w[4 * (v - v0)] = f.x;
    w[4 * (v - v0) + 1] = f.y;
    w[4 * (v - v0) + 2] = f.z;
    w[4 * (v - v0) + 3] = f.w;
  }
}

// One thread's ROWS × 4 patch of the tile at (row0, col0), from the shared tile, stored.
// To kMaxUnrolled every loop is unrolled, the weights constant-bank operands of the FFMAs: a thread
// reads each tile row under its patch once and feeds it to every (output row, filter row) pair that
// uses it. Wider filters (an unrolled kernel would be up to 16 × 961 FFMAs long) loop over their
// filter rows at run time, four at a time so that each tile row's shift — which depends on its
// index mod 4 — stays a compile-time constant; a filter row's weights are loaded into registers
// once and a window read for each output row.
template <int BX, int KS, int ROWS, int NMOD4>
__device__ __forceinline__ void compute_store(const float* tile, float* __restrict__ out, int m,
                                              int n, int row0, int col0) {
  constexpr int r = KS / 2, pitch = row_pitch(BX, r, NMOD4);
  static_assert(NMOD4 == 0 || ROWS % 4 == 0, "a thread's first row must be ≡ row0 (mod 4)");
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int j = col0 + kCols * tx;  // image column of the thread's first output (unshifted)

  float acc[ROWS][kCols];
#pragma unroll
  for (int rr = 0; rr < ROWS; ++rr)
#pragma unroll
    for (int c = 0; c < kCols; ++c) acc[rr][c] = 0.0f;

  const float* base = tile + (ty * ROWS) * pitch + kCols * tx;
  if constexpr (KS <= kMaxUnrolled) {
#pragma unroll
    for (int ir = 0; ir < ROWS + KS - 1; ++ir) {
      const int s = row_shift(ir, r, NMOD4);
      float w[kWindowFloats<KS>];
      load_window<KS, NMOD4>(base + ir * pitch, s, w);
#pragma unroll
      for (int rr = 0; rr < ROWS; ++rr) {
        const int a = ir - rr;
        if (a < 0 || a >= KS) continue;  // compile-time after unrolling
        const int p = window_tap0(KS, NMOD4, s, rr);
#pragma unroll
        for (int b = 0; b < KS; ++b) {
          const float wt = c_weights_reg[a * KS + b];
#pragma unroll
          for (int c = 0; c < kCols; ++c) acc[rr][c] = fmaf(w[p + c + b], wt, acc[rr][c]);
        }
      }
    }
  } else {
#pragma unroll 1
    for (int a4 = 0; a4 < KS; a4 += 4) {
#pragma unroll
      for (int da = 0; da < 4; ++da) {
        const int a = a4 + da;
        if (a < KS) {  // uniform: the last group of filter rows may be short
          float wt[KS];
#pragma unroll
          for (int b = 0; b < KS; ++b) wt[b] = c_weights_reg[a * KS + b];
#pragma unroll
          for (int rr = 0; rr < ROWS; ++rr) {
            const int s = row_shift(rr + da, r, NMOD4);  // tile row rr + a ≡ rr + da (mod 4)
            float w[kWindowFloats<KS>];
            load_window<KS, NMOD4>(base + (rr + a) * pitch, s, w);
            const int p = window_tap0(KS, NMOD4, s, rr);
#pragma unroll
            for (int b = 0; b < KS; ++b)
#pragma unroll
              for (int c = 0; c < kCols; ++c) acc[rr][c] = fmaf(w[p + c + b], wt[b], acc[rr][c]);
          }
        }
      }
    }
  }

#pragma unroll
  for (int rr = 0; rr < ROWS; ++rr) {
    const int i = row0 + ty * ROWS + rr, jo = j - out_shift(rr, NMOD4);
    if (i >= m || jo >= n) continue;
    const std::int64_t at = static_cast<std::int64_t>(i) * n + jo;  // a multiple of 4
    if (NMOD4 == 0 || (jo >= 0 && jo + kCols <= n)) {
      *reinterpret_cast<float4*>(out + at) =
          make_float4(acc[rr][0], acc[rr][1], acc[rr][2], acc[rr][3]);
    } else {  // the image's first or last columns
#pragma unroll
      for (int c = 0; c < kCols; ++c)
        if (jo + c >= 0 && jo + c < n) out[at + c] = acc[rr][c];
    }
  }
}

// Copies the tile at (row0, col0), with bounds tests only where it reaches beyond the image.
template <int BX, int KS, int ROWS, int NMOD4>
__device__ __forceinline__ void load_tile_at(float* tile, const float* __restrict__ in, int m,
                                             int n, int row0, int col0) {
  if (tile_inside<BX, KS, ROWS, NMOD4>(m, n, row0, col0))  // uniform over the block
    load_tile<BX, KS, ROWS, NMOD4, true>(tile, in, m, n, row0, col0);
  else
    load_tile<BX, KS, ROWS, NMOD4, false>(tile, in, m, n, row0, col0);
}

// Blocks an SM that the kernels' __launch_bounds__ ask registers for. At 4 rows a thread and
// every tap unrolled, six (40 registers: ptxas would take 48 to 64 for some instances, which
// leaves room for four or five). Where filter rows are looped, two: a filter row's weights and a
// window live at once (98 to 128 registers, 12 to 16 bytes spilled at ks = 31 on unaligned rows;
// at three blocks, 80 registers, ptxas spilled 30 to 650 bytes).
__host__ __device__ constexpr int min_blocks(int ks, int rows) {
  return ks > kMaxUnrolled ? 2 : rows <= 4 ? 6 : 4;
}

// Kernel of BX threads across a tile row, filter side KS (odd, ≤ 31), ROWS output rows per
// thread, for rows of n ≡ NMOD4 (mod 4) floats; block BX × 256 / BX, grid
// grid_for(BX, m, n, ROWS, NMOD4), shared_bytes(BX, KS, ROWS, NMOD4) of dynamic shared memory.
template <int BX, int KS, int ROWS, int NMOD4>
__global__ void __launch_bounds__(kThreads, min_blocks(KS, ROWS))
    conv2d_shared_reg(const float* __restrict__ in, float* __restrict__ out, int m, int n) {
  extern __shared__ __align__(16) float tile[];
  constexpr int th = tile_height(BX, ROWS);
  const int col0 = static_cast<int>(blockIdx.x) * tile_width(BX);
  for (int tile_y = static_cast<int>(blockIdx.y); tile_y * th < m;
       tile_y += static_cast<int>(gridDim.y)) {
    const int row0 = tile_y * th;
    load_tile_at<BX, KS, ROWS, NMOD4>(tile, in, m, n, row0, col0);
    cp_async_wait<0>();
    __syncthreads();  // every thread's copies have landed
    compute_store<BX, KS, ROWS, NMOD4>(tile, out, m, n, row0, col0);
    __syncthreads();  // everyone is done with this tile before the next one overwrites it
  }
}

// The persistent, self-scheduling form of the same kernel, for rows of n ≡ NMOD4 (mod 4) floats
// (conv2d_shared_reg.cu times it against the grid of whole tiles at set-up): a grid of as many
// blocks as the GPU holds at once (persistent_grid), each taking tiles, numbered row by row, from a
// counter as it becomes free — as the hardware deals out a grid of whole tiles, so the tiles in
// flight stay a compact run of rows and a block slowed down takes fewer (blocks that each walked a
// fixed share of the tiles ran 3 to 15 points behind the grid of whole tiles on an H200). Two tile
// buffers: a block issues the copies of its next tile before it computes the current one, so its
// own loads overlap its compute.
//
// `counter` is zero at the start; block 0 zeroes `spare`, the next launch's counter, which no
// block of this launch touches, so nothing is left to do when the last block ends. Shared memory:
// 2 · shared_bytes(BX, KS, ROWS, NMOD4).
template <int BX, int KS, int ROWS, int NMOD4>
__global__ void __launch_bounds__(kThreads, min_blocks(KS, ROWS))
    conv2d_shared_reg_persistent(const float* __restrict__ in, float* __restrict__ out, int m,
                                 int n, unsigned* counter, unsigned* spare) {
  extern __shared__ __align__(16) float tile[];
  __shared__ int next_tile;  // the leader's draw, for the whole block
  constexpr int th = tile_height(BX, ROWS), tw = tile_width(BX);
  const int tiles_x = tile_columns(BX, n, NMOD4);
  const int tiles = tiles_x * tile_rows(BX, m, ROWS);
  const bool leader = threadIdx.x == 0 && threadIdx.y == 0;
  if (leader && blockIdx.x == 0) *spare = 0;
  const auto corner = [&](int t) { return int2{t / tiles_x * th, t % tiles_x * tw}; };

  int2 cur = corner(static_cast<int>(blockIdx.x));  // (row0, col0); the grid has ≤ tiles blocks
  float* current = tile;
  float* next = tile + tile_floats(BX, KS, ROWS, NMOD4);
  load_tile_at<BX, KS, ROWS, NMOD4>(current, in, m, n, cur.x, cur.y);
  for (;;) {
    if (leader) next_tile = static_cast<int>(gridDim.x + atomicAdd(counter, 1u));
    __syncthreads();
    const int t = next_tile;
    const bool more = t < tiles;
    if (more) {
      const int2 at = corner(t);
      load_tile_at<BX, KS, ROWS, NMOD4>(next, in, m, n, at.x, at.y);
      cp_async_wait<1>();  // all but the group just issued: the current tile has landed
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    compute_store<BX, KS, ROWS, NMOD4>(current, out, m, n, cur.x, cur.y);
    __syncthreads();  // `current` and next_tile are free for the next round
    if (!more) return;
    cur = corner(t);
    float* const computed = current;
    current = next;
    next = computed;
  }
}

// Launch geometry of an instance: the tiles (one more column of tiles where shifted output rows
// would otherwise miss the last columns), rows beyond kMaxGridY looped over.
inline dim3 grid_for(int bx, int m, int n, int rows, int n_mod4) {
  const int tiles_y = tile_rows(bx, m, rows);
  const int gy = tiles_y < static_cast<int>(kMaxGridY) ? tiles_y : static_cast<int>(kMaxGridY);
  return dim3(static_cast<unsigned>(tile_columns(bx, n, n_mod4)), static_cast<unsigned>(gy));
}

// Launch geometry of the persistent kernel: `resident` blocks (what the GPU holds at once), or
// one per tile where there are fewer tiles.
inline dim3 persistent_grid(int bx, int m, int n, int rows, int n_mod4, std::int64_t resident) {
  const std::int64_t tiles = std::int64_t{tile_columns(bx, n, n_mod4)} * tile_rows(bx, m, rows);
  return dim3(static_cast<unsigned>(tiles < resident ? tiles : resident));
}

}  // namespace runner::kernels::conv2d::shared_reg
