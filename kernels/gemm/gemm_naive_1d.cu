// gemm naive_1d: a 1-D grid-stride loop over the m·n outputs, one output per step (seed
// 003's MatMulKernel1D, with the correct stride blockDim.x·gridDim.x); the grid axis sets the
// number of blocks, so that few-thread launches can be measured too.
#include "kernels/gemm/gemm_launch_plan.cuh"

namespace runner::kernels::gemm {

namespace {

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

}  // namespace

RUNNER_FACTORY(naive_1d, planned<plan_naive_1d<float>, plan_naive_1d<double>>);

}  // namespace runner::kernels::gemm
