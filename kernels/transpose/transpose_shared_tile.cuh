#pragma once
// What the shared-memory CUDA transposes (smem, smem_pad, tiled_rows) share. A block reads a tile
// of input rows (coalesced) into shared memory, synchronises, and writes the tile's columns as
// output rows (coalesced): the strided access moves from global memory to shared memory, where it
// costs bank conflicts unless the tile is padded by one column.
//
// Tile (tx, ty) of the grid covers input rows [ty·T, ty·T + T) and columns [tx·T, tx·T + T); it
// becomes output rows [tx·T, ...) and columns [ty·T, ...). Thread (x, y) moves the elements of
// tile column x in tile rows y, y + block.y, y + 2·block.y, ... so a block of T × R threads
// (R ≤ T) moves a T × T tile. Edge tiles guard every access: any m×n works.
//
// smem and smem_pad are the one kernel and workload below, without and with the padding column.
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/transpose/transpose_cuda_workload.hpp"

namespace runner::kernels::transpose {

// Dynamic shared memory as T (the one extern array every shared-tile kernel shares, declared as
// bytes so that float and double instantiations do not clash; 16-byte aligned for double).
template <typename T>
__device__ T* shared_tile() {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  return reinterpret_cast<T*>(shared_bytes);
}

// smem / smem_pad: tile side T = blockDim.x at run time; row stride T (kPadded false: reading a
// tile column hits the same bank for every thread of a warp) or T + 1 (consecutive banks).
template <typename T, bool kPadded>
__global__ void shared_tile_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t m,
                                   std::int64_t n, unsigned tiles_x) {
  T* tile = shared_tile<T>();
  const int side = static_cast<int>(blockDim.x), stride = side + (kPadded ? 1 : 0);
  const int x = static_cast<int>(threadIdx.x);
  const std::int64_t row0 = std::int64_t{blockIdx.x / tiles_x} * side;
  const std::int64_t col0 = std::int64_t{blockIdx.x % tiles_x} * side;
  // The trip count is known only at run time; unrolling by 4 still lets a thread's loads be in
  // flight together (measured 15-20% faster in float on an H200 than the plain loop).
#pragma unroll 4
  for (int r = static_cast<int>(threadIdx.y); r < side; r += static_cast<int>(blockDim.y)) {
    const std::int64_t row = row0 + r, col = col0 + x;
    if (row < m && col < n) tile[r * stride + x] = in[row * n + col];
  }
  __syncthreads();
#pragma unroll 4
  for (int r = static_cast<int>(threadIdx.y); r < side; r += static_cast<int>(blockDim.y)) {
    const std::int64_t out_row = col0 + r, out_col = row0 + x;
    if (out_row < n && out_col < m) out[out_row * m + out_col] = tile[x * stride + r];
  }
}

// The tile is block.x × block.x; block.y rows of threads loop over it, so more rows than columns
// would leave threads idle.
inline void require_rows_within_tile(const BlockShape& block) {
  if (block.y > block.x)
    throw PointInvalid("block " + std::to_string(block.x) + "x" + std::to_string(block.y) +
                       ": the tile is block.x × block.x, so block.y must not exceed block.x");
}

template <typename T, bool kPadded>
class SharedTile final : public CudaTranspose<T> {
 public:
  SharedTile(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaTranspose<T>(point, std::move(problem), launch(point)),
        grid_(tile_grid(this->n(), this->block_.x, this->m(), this->block_.x)) {}

  void run() override {
    this->note_launch(dim3(grid_.blocks), this->block_dim());
    shared_tile_kernel<T, kPadded>
        <<<grid_.blocks, this->block_dim(), shared_bytes(this->block_), this->stream()>>>(
            this->in_.data(), this->out_.data(), this->m(), this->n(), grid_.tiles_x);
    RUNNER_CUDA_CHECK_LAUNCH();
  }

 private:
  static std::size_t shared_bytes(const BlockShape& block) {
    const auto side = static_cast<std::size_t>(block.x);
    return side * (side + (kPadded ? 1 : 0)) * sizeof(T);
  }
  static KernelLaunch launch(const Point& point) {
    require_rows_within_tile(*point.block);
    return {reinterpret_cast<const void*>(&shared_tile_kernel<T, kPadded>),
            shared_bytes(*point.block)};
  }

  TileGrid grid_;
};

}  // namespace runner::kernels::transpose
