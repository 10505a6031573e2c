// Hand-written CUDA GEMM variants. All compute C = A·B for row-major A (m×k), B (k×n), C (m×n),
// accumulate in the element type (like the CPU loops) and work for any m, n, k:
//   naive_1d  a 1-D grid-stride loop over the m·n outputs, one output per step (seed 003's
//             MatMulKernel1D, with the correct stride blockDim.x·gridDim.x); the grid axis sets
//             the number of blocks, so that few-thread launches can be measured too
//   naive_2d  one thread per output on a 2-D grid of 2-D blocks (x along the columns of C, so
//             a warp reads B and writes C coalesced)
//   shared    square tiles of A and B staged in shared memory, the tile the size of the block,
//             one output per thread; tiles reaching past the matrix edge are zero-filled
// Grids are capped at the hardware limits (2^31-1 × 65535 blocks) and every kernel strides over
// what a capped grid does not cover, so no extent is too large to launch.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "kernels/gemm/gemm_cuda.hpp"
#include "kernels/gemm/gemm_cuda_workload.hpp"
#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/errors.hpp"

namespace runner::kernels::gemm {

namespace {

constexpr std::int64_t kMaxGridX = 2147483647;  // gridDim.x limit of every GPU since sm_30
constexpr std::int64_t kMaxGridY = 65535;

// Register budget: the 32-bit instances (all but huge problems) are compiled to fit 2048 threads
// per SM (the most that sm_80 and sm_90 hold) in the 64 K registers, i.e. 32 registers a thread,
// so that registers never limit occupancy whatever the block shape; without the bound a 32×32
// block took 38-40 registers and ran alone on its SM. The 64-bit instances would spill under
// that cap and keep the compiler's choice.
constexpr int kThreadsPerSm = 2048;
constexpr int kMaxBlockThreads = 1024;

template <typename Index>
constexpr int min_blocks_per_sm(int block_threads) {
  return sizeof(Index) == 4 ? kThreadsPerSm / block_threads : 1;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// Every kernel takes the extents as 64-bit values and computes in `Index`: int where every offset
// into A, B and C and every thread index fits in it (fewer registers and cheaper address
// arithmetic), std::int64_t otherwise, so that any size works.
template <typename T>
using GemmKernel = void (*)(const T*, const T*, T*, std::int64_t, std::int64_t, std::int64_t);

template <typename T, typename Index>
__global__ void __launch_bounds__(kMaxBlockThreads, min_blocks_per_sm<Index>(kMaxBlockThreads))
    naive_1d_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c,
                    std::int64_t m_extent, std::int64_t n_extent, std::int64_t k_extent) {
  const Index n = static_cast<Index>(n_extent), k = static_cast<Index>(k_extent);
  const Index outputs = static_cast<Index>(m_extent) * n;
  const Index stride = static_cast<Index>(blockDim.x) * static_cast<Index>(gridDim.x);
  for (Index idx = static_cast<Index>(blockIdx.x) * static_cast<Index>(blockDim.x) +
                   static_cast<Index>(threadIdx.x);
       idx < outputs; idx += stride) {
    const Index row = idx / n, col = idx - row * n;
    const T* a_row = a + row * k;
    const T* b_col = b + col;
    T sum = 0;
    for (Index p = 0; p < k; ++p) sum += a_row[p] * b_col[p * n];
    c[idx] = sum;
  }
}

template <typename T, typename Index>
__global__ void __launch_bounds__(kMaxBlockThreads, min_blocks_per_sm<Index>(kMaxBlockThreads))
    naive_2d_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c,
                    std::int64_t m_extent, std::int64_t n_extent, std::int64_t k_extent) {
  const Index m = static_cast<Index>(m_extent), n = static_cast<Index>(n_extent),
              k = static_cast<Index>(k_extent);
  const Index row_stride = static_cast<Index>(blockDim.y) * static_cast<Index>(gridDim.y);
  const Index col_stride = static_cast<Index>(blockDim.x) * static_cast<Index>(gridDim.x);
  for (Index row = static_cast<Index>(blockIdx.y) * static_cast<Index>(blockDim.y) +
                   static_cast<Index>(threadIdx.y);
       row < m; row += row_stride) {
    for (Index col = static_cast<Index>(blockIdx.x) * static_cast<Index>(blockDim.x) +
                     static_cast<Index>(threadIdx.x);
         col < n; col += col_stride) {
      const T* a_row = a + row * k;
      const T* b_col = b + col;
      T sum = 0;
      for (Index p = 0; p < k; ++p) sum += a_row[p] * b_col[p * n];
      c[row * n + col] = sum;
    }
  }
}

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

// Whether a launch of `threads` threads on this problem may index in int: every offset into A, B
// and C and every thread's first index, with a grid-stride step added, stays below 2^31.
bool fits_int(const ProblemSize& s, std::int64_t threads) {
  const std::int64_t largest = std::max({s.m * s.n, s.m * s.k, s.k * s.n});
  return largest + 2 * threads < std::int64_t{2147483647};
}

std::int64_t threads_of(const dim3& grid, const dim3& block) {
  return std::int64_t{grid.x} * grid.y * block.x * block.y;
}

// How a variant launches, decided from the point alone before any device memory is allocated, so
// that an impossible block shape costs nothing.
template <typename T>
struct LaunchPlan {
  GemmKernel<T> kernel = nullptr;
  dim3 grid, block;
  std::size_t shared_bytes = 0;
};

template <typename T>
void require_launchable(const LaunchPlan<T>& plan) {
  const BlockShape shape{static_cast<int>(plan.block.x), static_cast<int>(plan.block.y)};
  cuda::require_launchable(shape, plan.shared_bytes, reinterpret_cast<const void*>(plan.kernel));
}

dim3 two_d_block(const BlockShape& block) {
  return dim3(static_cast<unsigned>(block.x), static_cast<unsigned>(block.y));
}

// Enough tiles of tile_x × tile_y to cover C, within the grid limits.
dim3 covering_grid(const ProblemSize& size, std::int64_t tile_x, std::int64_t tile_y) {
  return dim3(static_cast<unsigned>(std::min(ceil_div(size.n, tile_x), kMaxGridX)),
              static_cast<unsigned>(std::min(ceil_div(size.m, tile_y), kMaxGridY)));
}

template <typename T>
LaunchPlan<T> plan_naive_1d(const Point& point) {
  const BlockShape block = *point.block;
  if (block.y != 1)
    throw PointInvalid("naive_1d takes a 1-D block such as [256]; got " + to_string(block) +
                       " (block y must be 1)");
  const std::int64_t grid = point.grid.value_or(0);
  if (grid > kMaxGridX)
    throw PointInvalid("grid " + std::to_string(grid) + " exceeds the limit of " +
                       std::to_string(kMaxGridX) + " blocks");
  LaunchPlan<T> plan;
  plan.block = dim3(static_cast<unsigned>(block.x));
  // grid 0: one output per thread (or as many blocks as the hardware allows; the loop strides on).
  const std::int64_t outputs = point.size->m * point.size->n;
  plan.grid = dim3(
      static_cast<unsigned>(grid > 0 ? grid : std::min(ceil_div(outputs, block.x), kMaxGridX)));
  plan.kernel = fits_int(*point.size, threads_of(plan.grid, plan.block))
                    ? naive_1d_kernel<T, int>
                    : naive_1d_kernel<T, std::int64_t>;
  require_launchable(plan);
  return plan;
}

template <typename T>
LaunchPlan<T> plan_naive_2d(const Point& point) {
  const BlockShape block = *point.block;
  LaunchPlan<T> plan;
  plan.block = two_d_block(block);
  plan.grid = covering_grid(*point.size, block.x, block.y);
  plan.kernel = fits_int(*point.size, threads_of(plan.grid, plan.block))
                    ? naive_2d_kernel<T, int>
                    : naive_2d_kernel<T, std::int64_t>;
  require_launchable(plan);
  return plan;
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

// Every hand-written variant: one launch of its planned kernel on the workload's stream.
template <typename T>
class HandWrittenGemm final : public CudaGemm<T> {
 public:
  HandWrittenGemm(const Point& point, std::shared_ptr<const Problem> problem, LaunchPlan<T> plan)
      : CudaGemm<T>(point, std::move(problem)), plan_(plan) {}

  void run() override {
    plan_.kernel<<<plan_.grid, plan_.block, plan_.shared_bytes, this->stream()>>>(
        this->a_.data(), this->b_.data(), this->c_.data(), this->m(), this->n(), this->k());
    RUNNER_CUDA_CHECK_LAUNCH();
  }

  // Blocks launched: what grid 0 and the grid caps leave implicit.
  nlohmann::json extra_fields() const override {
    nlohmann::json fields = CudaGemm<T>::extra_fields();
    fields["grid_blocks"] = static_cast<std::int64_t>(plan_.grid.x) * plan_.grid.y;
    return fields;
  }

 private:
  LaunchPlan<T> plan_;
};

template <typename T>
std::unique_ptr<Workload> make_planned(const Point& point, std::shared_ptr<const Problem> problem,
                                       LaunchPlan<T> (*plan)(const Point&)) {
  return std::make_unique<HandWrittenGemm<T>>(point, std::move(problem), plan(point));
}

}  // namespace

std::unique_ptr<Workload> make_naive_1d(const Point& point,
                                        std::shared_ptr<const Problem> problem) {
  if (point.dtype == Dtype::f64)
    return make_planned(point, std::move(problem), plan_naive_1d<double>);
  return make_planned(point, std::move(problem), plan_naive_1d<float>);
}
std::unique_ptr<Workload> make_naive_2d(const Point& point,
                                        std::shared_ptr<const Problem> problem) {
  if (point.dtype == Dtype::f64)
    return make_planned(point, std::move(problem), plan_naive_2d<double>);
  return make_planned(point, std::move(problem), plan_naive_2d<float>);
}
std::unique_ptr<Workload> make_shared_tiled(const Point& point,
                                            std::shared_ptr<const Problem> problem) {
  if (point.dtype == Dtype::f64)
    return make_planned(point, std::move(problem), plan_shared_tiled<double>);
  return make_planned(point, std::move(problem), plan_shared_tiled<float>);
}

}  // namespace runner::kernels::gemm
