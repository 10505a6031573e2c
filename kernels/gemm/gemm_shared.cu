// gemm shared: square tiles of A and B staged in shared memory, the tile the size of the
// block, one output per thread; tiles reaching past the matrix edge are zero-filled.
#include "kernels/gemm/gemm_launch_plan.cuh"

namespace runner::kernels::gemm {

namespace {

// sum += row `ty` of the A tile · column `tx` of the B tile. Tiles of the common block sizes are
// compile-time constants (kTile > 0), so the loop unrolls fully and the shared-memory offsets
// become immediates; any other square block runs the kTile = 0 instance with the tile from
// blockDim.x.
template <int kTile, typename T>
__device__ __forceinline__ void tile_dot(const T* a_tile, const T* b_tile, int tile, int ty, int tx,
                                         T& sum) {
  if constexpr (kTile > 0) {
#pragma unroll
    for (int q = 0; q < kTile; ++q) sum += a_tile[ty * kTile + q] * b_tile[q * kTile + tx];
  } else {
#pragma unroll 4
    for (int q = 0; q < tile; ++q) sum += a_tile[ty * tile + q] * b_tile[q * tile + tx];
  }
}

template <typename T, int kTile, typename Index>
__global__ void __launch_bounds__(kTile > 0 ? kTile * kTile : kMaxBlockThreads,
                                  min_blocks_per_sm<Index>(kTile > 0 ? kTile * kTile
                                                                     : kMaxBlockThreads))
    shared_tiled_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c,
                        std::int64_t m_extent, std::int64_t n_extent, std::int64_t k_extent) {
  // Dynamic shared memory, 2·tile² elements: the A tile, then the B tile. Declared as bytes
  // because one extern array serves every element type.
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const int tile = kTile > 0 ? kTile : static_cast<int>(blockDim.x);
  T* a_tile = reinterpret_cast<T*>(shared_bytes);
  T* b_tile = a_tile + tile * tile;
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const Index m = static_cast<Index>(m_extent), n = static_cast<Index>(n_extent),
              k = static_cast<Index>(k_extent);

  // The loops over tiles of C run the same trip count in every thread of the block, so the
  // barriers inside are reached by all of them.
  for (Index row0 = static_cast<Index>(blockIdx.y) * tile; row0 < m;
       row0 += static_cast<Index>(gridDim.y) * tile) {
    for (Index col0 = static_cast<Index>(blockIdx.x) * tile; col0 < n;
         col0 += static_cast<Index>(gridDim.x) * tile) {
      const Index row = row0 + ty, col = col0 + tx;
      T sum = 0;
      for (Index p0 = 0; p0 < k; p0 += tile) {
        // Zeros past an edge add nothing to the sum, so the dot product needs no guards.
        a_tile[ty * tile + tx] = row < m && p0 + tx < k ? a[row * k + p0 + tx] : T(0);
        b_tile[ty * tile + tx] = p0 + ty < k && col < n ? b[(p0 + ty) * n + col] : T(0);
        __syncthreads();
        tile_dot<kTile>(a_tile, b_tile, tile, ty, tx, sum);
        __syncthreads();  // the next iteration overwrites the tiles
      }
      if (row < m && col < n) c[row * n + col] = sum;
    }
  }
}

template <typename T, typename Index>
GemmKernel<T> shared_tiled_kernel_for(int tile) {
  switch (tile) {
    case 8:
      return shared_tiled_kernel<T, 8, Index>;
    case 16:
      return shared_tiled_kernel<T, 16, Index>;
    case 32:
      return shared_tiled_kernel<T, 32, Index>;
    default:
      return shared_tiled_kernel<T, 0, Index>;
  }
}

template <typename T>
LaunchPlan<T> plan_shared_tiled(const Point& point) {
  const BlockShape block = *point.block;
  if (block.x != block.y)
    throw PointInvalid("shared needs a square block (its tiles are block-sized and square); got " +
                       to_string(block));
  const std::int64_t tile = block.x;
  LaunchPlan<T> plan;
  plan.block = two_d_block(block);
  plan.grid = covering_grid(*point.size, tile, tile);
  plan.kernel = fits_int(*point.size, threads_of(plan.grid, plan.block))
                    ? shared_tiled_kernel_for<T, int>(block.x)
                    : shared_tiled_kernel_for<T, std::int64_t>(block.x);
  plan.shared_bytes = static_cast<std::size_t>(2 * tile * tile) * sizeof(T);
  require_launchable(plan);
  return plan;
}

}  // namespace

RUNNER_FACTORY(shared, planned<plan_shared_tiled<float>, plan_shared_tiled<double>>);

}  // namespace runner::kernels::gemm
