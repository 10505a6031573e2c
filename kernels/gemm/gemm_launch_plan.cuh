#pragma once
// What the seed CUDA GEMM variants (naive_1d, naive_2d, shared) share: C = A·B for row-major A
// (m×k), B (k×n), C (m×n), accumulated in the element type (like the CPU loops), for any m, n, k.
// Each variant plans its launch from the point alone (grid, block, shared memory, the kernel
// instance) before any device memory is allocated, so that an impossible block shape costs
// nothing, and then launches it once per run. Grids are capped at the hardware limits (2^31-1 ×
// 65535 blocks) and every kernel strides over what a capped grid does not cover, so no extent is
// too large to launch.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "kernels/gemm/gemm_cuda_workload.hpp"
#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/gpu/launch_bounds.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::gemm {

constexpr std::int64_t kMaxGridX = 2147483647;  // gridDim.x limit of every GPU since sm_30
constexpr std::int64_t kMaxGridY = 65535;

// Register budget: the 32-bit instances (all but huge problems) are compiled to fit 2048 threads
// per SM (the most that sm_80 and sm_90 hold) in the 64 K registers, i.e. 32 registers a thread,
// so that registers never limit occupancy whatever the block shape; without the bound a 32×32
// block took 38-40 registers and ran alone on its SM. The 64-bit instances would spill under
// that cap and keep the compiler's choice.
constexpr int kThreadsPerSm = 2048;
constexpr int kMaxBlockThreads = 1024;

// The second argument of __launch_bounds__, stated in CUDA's blocks per SM and converted for a
// HIP build's compiler (runner/api/gpu/launch_bounds.hpp): 2048 threads per CU is 8 waves per SIMD.
template <typename Index>
constexpr int min_blocks_per_sm(int block_threads) {
  return gpu::min_resident(block_threads, sizeof(Index) == 4 ? kThreadsPerSm / block_threads : 1);
}

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// Every kernel takes the extents as 64-bit values and computes in `Index`: int where every offset
// into A, B and C and every thread index fits in it (fewer registers and cheaper address
// arithmetic), std::int64_t otherwise, so that any size works.
template <typename T>
using GemmKernel = void (*)(const T*, const T*, T*, std::int64_t, std::int64_t, std::int64_t);

// Whether a launch of `threads` threads on this problem may index in int: every offset into A, B
// and C and every thread's first index, with a grid-stride step added, stays below 2^31.
inline bool fits_int(const ProblemSize& s, std::int64_t threads) {
  const std::int64_t largest = std::max({s.m * s.n, s.m * s.k, s.k * s.n});
  return largest + 2 * threads < std::int64_t{2147483647};
}

inline std::int64_t threads_of(const dim3& grid, const dim3& block) {
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

inline dim3 two_d_block(const BlockShape& block) {
  return dim3(static_cast<unsigned>(block.x), static_cast<unsigned>(block.y));
}

// Enough tiles of tile_x × tile_y to cover C, within the grid limits.
inline dim3 covering_grid(const ProblemSize& size, std::int64_t tile_x, std::int64_t tile_y) {
  return dim3(static_cast<unsigned>(std::min(ceil_div(size.n, tile_x), kMaxGridX)),
              static_cast<unsigned>(std::min(ceil_div(size.m, tile_y), kMaxGridY)));
}

// Every hand-written variant: one launch of its planned kernel on the workload's stream.
template <typename T>
class HandWrittenGemm final : public CudaGemm<T> {
 public:
  HandWrittenGemm(const Point& point, std::shared_ptr<const Problem> problem, LaunchPlan<T> plan)
      : CudaGemm<T>(point, std::move(problem)), plan_(plan) {}

  void run() override {
    this->note_launch(plan_.grid, plan_.block);
    plan_.kernel<<<plan_.grid, plan_.block, plan_.shared_bytes, this->stream()>>>(
        this->a_.data(), this->b_.data(), this->c_.data(), this->m(), this->n(), this->k());
    RUNNER_CUDA_CHECK_LAUNCH();
  }

 private:
  LaunchPlan<T> plan_;
};

// The factory of a planned variant: its plan for float or double, by the point's dtype.
template <LaunchPlan<float> (*PlanFloat)(const Point&),
          LaunchPlan<double> (*PlanDouble)(const Point&)>
std::unique_ptr<Workload> planned(const Point& point, std::shared_ptr<const Problem> problem) {
  if (point.dtype == Dtype::f64)
    return std::make_unique<HandWrittenGemm<double>>(point, std::move(problem), PlanDouble(point));
  return std::make_unique<HandWrittenGemm<float>>(point, std::move(problem), PlanFloat(point));
}

}  // namespace runner::kernels::gemm
