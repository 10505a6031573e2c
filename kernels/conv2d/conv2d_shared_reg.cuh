#pragma once
// Device code of the conv2d `shared_reg` variant (conv2d_shared_reg.cu, which describes the
// scheme), in a header so that a tuning candidate registered as its own variant can instantiate the
// same templates (docs/performance.md, "Log").
//
// A fixed block of 32 × 8 threads computes a 128-column × (8 · ROWS)-row output tile; each thread
// a ROWS × 4 patch (ROWS rows of 4 adjacent columns) in registers. Going down its patch, a thread
// reads every tile row under it once (a window of 4 + 2H floats, as float4s) and feeds it to all
// the (output row, filter row) pairs that use it, so a larger ROWS means fewer shared reads and
// less vertical halo per output.
//
// The grid covers the tiles (2-D, tile rows beyond gridDim.y looped over); each block copies its
// tile with cp.async — every copy of a thread issued before any is waited for, so a thread has
// its whole share of the tile in flight at once — waits, and computes. (Plain loads, each into a
// register then a shared store, kept one load in flight a thread: the kernel stalled on them
// 15 cycles an instruction and moved 74–79 % of the copy kernel's bandwidth at 8192², k = 3 and 5,
// on an H200; with cp.async 88–91 %. A persistent grid double-buffering its tiles, the former
// k = 7 instance, was slower than this at 8192² for every k, and ahead only at 4096², k = 5:
// docs/performance.md.)
//
// The filter lives in constant memory, c_weights_reg, one copy per translation unit that includes
// this header (no relocatable device code): fill it with cudaMemcpyToSymbol from that unit.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/common/cp_async.cuh"

namespace runner::kernels::conv2d::shared_reg {

inline constexpr int kMaxFilter = 31;  // = kMaxKernelSize of conv2d_problem.hpp

namespace {
__constant__ float c_weights_reg[kMaxFilter * kMaxFilter];
}  // namespace

inline constexpr int kBlockX = 32, kBlockY = 8;  // threads
inline constexpr int kCols = 4;                  // output columns per thread
inline constexpr int kTileW = kBlockX * kCols;   // 128 output columns per tile
inline constexpr unsigned kMaxGridY = 65535;

__host__ __device__ constexpr int halo_cols(int r) {
  return (r + 3) / 4 * 4;
}  // H
__host__ __device__ constexpr int tile_pitch(int r) {
  return kTileW + 2 * halo_cols(r);
}
__host__ __device__ constexpr int tile_height(int rows) {
  return kBlockY * rows;
}
// Floats of one tile buffer.
__host__ __device__ constexpr int tile_floats(int ks, int rows) {
  return (tile_height(rows) + 2 * (ks / 2)) * tile_pitch(ks / 2);
}
constexpr std::size_t shared_bytes(int ks, int rows) {
  return static_cast<std::size_t>(tile_floats(ks, rows)) * sizeof(float);
}

// The whole block copies the tile at (row0, col0) (zeros outside the image) as float4 slots with
// cp.async, committed as one group; the caller waits for it.
template <int ROWS>
__device__ __forceinline__ void load_tile(float* tile, const float* __restrict__ in, int m, int n,
                                          int r, int row0, int col0) {
  const int hc = halo_cols(r), pitch4 = tile_pitch(r) / 4;
  const int slots = (tile_height(ROWS) + 2 * r) * pitch4;
  const int t = static_cast<int>(threadIdx.y * kBlockX + threadIdx.x);
  const bool vec = n % 4 == 0;  // uniform over the grid
  for (int s = t; s < slots; s += kBlockX * kBlockY) {
    const int ty = s / pitch4, tx4 = s % pitch4;
    const int x = row0 - r + ty, y = col0 - hc + 4 * tx4;  // image row and first column
    const bool row_in = x >= 0 && x < m;
    const std::int64_t at = static_cast<std::int64_t>(x) * n + y;  // index of (x, y)
    float* dst = tile + ty * (4 * pitch4) + 4 * tx4;
    if (vec) {
      // y and n are multiples of 4: the vector is wholly inside or wholly outside the row.
      const bool inside = row_in && y >= 0 && y < n;
      cp_async_zfill<16>(dst, inside ? in + at : in, inside);
    } else {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const bool inside = row_in && y + e >= 0 && y + e < n;
        cp_async_zfill<4>(dst + e, inside ? in + at + e : in, inside);
      }
    }
  }
  cp_async_commit();
}

// One thread's ROWS × 4 patch of the tile at (row0, col0), from the shared tile, stored.
template <int KS, int ROWS>
__device__ __forceinline__ void compute_store(const float* tile, float* __restrict__ out, int m,
                                              int n, int row0, int col0) {
  constexpr int r = KS / 2, hc = halo_cols(r), pitch = tile_pitch(r);
  constexpr int kWindow = kCols + 2 * hc;  // floats a thread reads per tile row
  static_assert(hc - r >= 0 && kWindow % 4 == 0);
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int j = col0 + kCols * tx;  // image column of the thread's first output

  float acc[ROWS][kCols];
#pragma unroll
  for (int rr = 0; rr < ROWS; ++rr)
#pragma unroll
    for (int c = 0; c < kCols; ++c) acc[rr][c] = 0.0f;

  // Tile row ty·ROWS + ir holds image row row0 + ty·ROWS + ir − r: filter row a = ir − rr of
  // output row rr. Tile column kCols·tx + w holds image column j − hc + w: tap b of output
  // column c is w = c + b + hc − r.
  const float* base = tile + (ty * ROWS) * pitch + kCols * tx;
#pragma unroll
  for (int ir = 0; ir < ROWS + KS - 1; ++ir) {
    float w[kWindow];
#pragma unroll
    for (int v = 0; v < kWindow / 4; ++v) {
      const float4 f = *reinterpret_cast<const float4*>(base + ir * pitch + 4 * v);
      w[4 * v] = f.x;
      w[4 * v + 1] = f.y;
      w[4 * v + 2] = f.z;
      w[4 * v + 3] = f.w;
    }
#pragma unroll
    for (int rr = 0; rr < ROWS; ++rr) {
      const int a = ir - rr;
      if (a < 0 || a >= KS) continue;  // compile-time after unrolling
#pragma unroll
      for (int b = 0; b < KS; ++b) {
        const float wt = c_weights_reg[a * KS + b];
#pragma unroll
        for (int c = 0; c < kCols; ++c) acc[rr][c] = fmaf(w[c + b + hc - r], wt, acc[rr][c]);
      }
    }
  }

  const bool vec = n % 4 == 0;
#pragma unroll
  for (int rr = 0; rr < ROWS; ++rr) {
    const int i = row0 + ty * ROWS + rr;
    if (i >= m || j >= n) continue;
    float* dst = out + static_cast<std::int64_t>(i) * n + j;
    if (vec) {
      // j and n multiples of 4, j < n: all 4 columns inside, 16-byte aligned.
      *reinterpret_cast<float4*>(dst) = make_float4(acc[rr][0], acc[rr][1], acc[rr][2], acc[rr][3]);
    } else {
#pragma unroll
      for (int c = 0; c < kCols; ++c)
        if (j + c < n) dst[c] = acc[rr][c];
    }
  }
}

// Unrolled kernel of filter side KS (odd, ≤ 9: r ≤ H = 4), ROWS output rows per thread; grid
// (tiles_x, min(tiles_y, kMaxGridY)), shared_bytes(KS, ROWS) of dynamic shared memory.
template <int KS, int ROWS>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    conv2d_shared_reg(const float* __restrict__ in, float* __restrict__ out, int m, int n) {
  extern __shared__ __align__(16) float tile[];
  constexpr int r = KS / 2, th = tile_height(ROWS);
  const int col0 = static_cast<int>(blockIdx.x) * kTileW;
  for (int tile_y = static_cast<int>(blockIdx.y); tile_y * th < m;
       tile_y += static_cast<int>(gridDim.y)) {
    const int row0 = tile_y * th;
    load_tile<ROWS>(tile, in, m, n, r, row0, col0);
    cp_async_wait<0>();
    __syncthreads();  // every thread's copies have landed
    compute_store<KS, ROWS>(tile, out, m, n, row0, col0);
    __syncthreads();  // everyone is done with this tile before the next one overwrites it
  }
}

// Launch geometry of an instance: the tiles, rows beyond kMaxGridY looped over.
inline dim3 grid_for(int m, int n, int rows) {
  const std::int64_t tiles_x = (n + kTileW - 1) / kTileW;
  const std::int64_t tiles_y = (m + tile_height(rows) - 1) / tile_height(rows);
  const std::int64_t gy = tiles_y < kMaxGridY ? tiles_y : kMaxGridY;
  return dim3(static_cast<unsigned>(tiles_x), static_cast<unsigned>(gy));
}

}  // namespace runner::kernels::conv2d::shared_reg
