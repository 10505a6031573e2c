// gemm naive_2d: one thread per output on a 2-D grid of 2-D blocks (x along the columns of
// C, so a warp reads B and writes C coalesced).
#include "kernels/gemm/gemm_launch_plan.cuh"

namespace runner::kernels::gemm {

namespace {

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

}  // namespace

RUNNER_FACTORY(naive_2d, planned<plan_naive_2d<float>, plan_naive_2d<double>>);

}  // namespace runner::kernels::gemm
