#pragma once
// The classic TILE × BLOCK_ROWS shared-memory transpose kernel of the CUDA SDK (the scheme of
// transpose_shared_tile.cuh, tile and rows at compile time): the kernel of `tiled_rows`, and one of
// the kernels `tiled_vec` times at set-up beside its own (transpose_tiled_vec.cu).
#include <cstddef>
#include <cstdint>

#include "kernels/transpose/transpose_shared_tile.cuh"

namespace runner::kernels::transpose {

// tiled_rows: the TILE_DIM × BLOCK_ROWS kernel of the CUDA SDK, both compile-time, so each
// thread's TILE/BLOCK_ROWS loads are unrolled and in flight together before the barrier (a
// run-time BLOCK_ROWS loop measured 15-20% slower in float on an H200), and the shared-memory
// strides are constants. Interior tiles (all but the last tile row and column) skip the bounds
// checks; edge tiles keep them (the seeds' version read past the end).
template <typename T, int kTile, int kRows>
__global__ void tiled_rows_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t m,
                                  std::int64_t n, unsigned tiles_x) {
  constexpr int kStride = kTile + 1;
  T* tile = shared_tile<T>();
  const int x = static_cast<int>(threadIdx.x), y = static_cast<int>(threadIdx.y);
  const std::int64_t row0 = std::int64_t{blockIdx.x / tiles_x} * kTile;
  const std::int64_t col0 = std::int64_t{blockIdx.x % tiles_x} * kTile;
  const bool interior = row0 + kTile <= m && col0 + kTile <= n;  // the same for the whole block

  if (interior) {
    const T* src = in + (row0 + y) * n + col0 + x;
#pragma unroll
    for (int r = 0; r < kTile; r += kRows) tile[(y + r) * kStride + x] = src[r * n];
  } else {
#pragma unroll
    for (int r = 0; r < kTile; r += kRows) {
      const std::int64_t row = row0 + y + r, col = col0 + x;
      if (row < m && col < n) tile[(y + r) * kStride + x] = in[row * n + col];
    }
  }
  __syncthreads();
  if (interior) {
    T* dst = out + (col0 + y) * m + row0 + x;
#pragma unroll
    for (int r = 0; r < kTile; r += kRows) dst[r * m] = tile[x * kStride + y + r];
  } else {
#pragma unroll
    for (int r = 0; r < kTile; r += kRows) {
      const std::int64_t out_row = col0 + y + r, out_col = row0 + x;
      if (out_row < n && out_col < m) out[out_row * m + out_col] = tile[x * kStride + y + r];
    }
  }
}

template <typename T>
using TiledRowsKernel = void (*)(const T*, T*, std::int64_t, std::int64_t, unsigned);

// Its dynamic shared memory: the tile padded by one column.
template <typename T>
constexpr std::size_t tiled_rows_shared_bytes(int tile) {
  return static_cast<std::size_t>(tile) * static_cast<std::size_t>(tile + 1) * sizeof(T);
}

}  // namespace runner::kernels::transpose
