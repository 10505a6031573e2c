// Launch side of the `regtile` variant (FP32 SIMT GEMM with register tiles; the kernel template
// and its design are in gemm_regtile.cuh). The tiling is tuned and fixed (regtile::Regtile): the
// variant has no block axis. Where C has too few tiles to fill the GPU (small or deep-K problems)
// k is split (gemm_split_k.cuh); the record's `path` and `k_splits` say how.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "kernels/gemm/gemm_cuda_workload.hpp"
#include "kernels/gemm/gemm_regtile.cuh"
#include "kernels/gemm/gemm_split_k.cuh"
#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/gpu_info.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::gemm {

namespace {

constexpr std::int64_t kMaxGridX = 2147483647;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// Checked before any device memory is allocated: one block per BM×BN tile of C, on a 1-D grid.
const Point& require_grid(const Point& point) {
  if (point.dtype && *point.dtype != Dtype::f32)
    throw PointInvalid("regtile requires dtype float (it is an FP32 kernel)");
  const ProblemSize& s = *point.size;
  if (ceil_div(s.m, regtile::Regtile::BM) * ceil_div(s.n, regtile::Regtile::BN) > kMaxGridX)
    throw PointInvalid("size " + to_string(s) + " needs more than 2^31-1 blocks");
  return point;
}

// The split-K cost model's figures for this kernel: one 128×128×16 k-step of a block takes
// 2.9 µs with 2 blocks on every SM (47.3 TFLOP/s over 264 blocks at 4096³ on the H100); the
// workspace moves at about 3 TB/s (it mostly stays in the L2).
split_k::CostModel cost_model(const void* kernel) {
  int per_sm = 0;
  RUNNER_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel,
                                                                  regtile::Regtile::kThreads, 0));
  split_k::CostModel cost;
  cost.slots = std::int64_t{std::max(per_sm, 1)} * gpu_info().sm_count;
  cost.step_us = 2.9;
  cost.bytes_per_us = 3.0e6;
  return cost;
}

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

class RegtileGemm final : public CudaGemm<float> {
 public:
  RegtileGemm(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaGemm<float>(require_grid(point), std::move(problem)),
        tiles_m_(ceil_div(m(), regtile::Regtile::BM)),
        tiles_n_(ceil_div(n(), regtile::Regtile::BN)) {
    // float4 rows: every row of A, B and C starts on a 16-byte boundary.
    const bool vec = n() % 4 == 0 && k() % 4 == 0 && aligned16(a_.data()) && aligned16(b_.data()) &&
                     aligned16(c_.data());
    kernel_ = vec ? regtile::regtile_kernel<regtile::Regtile, true>
                  : regtile::regtile_kernel<regtile::Regtile, false>;
    cuda::require_launchable(BlockShape{regtile::Regtile::kThreads, 1}, 0,
                             reinterpret_cast<const void*>(kernel_));
    split_.emplace(cost_model(reinterpret_cast<const void*>(kernel_)), tiles_m_ * tiles_n_, m(),
                   n(), k(), regtile::Regtile::BK);
  }

  void run() override {
    note_launch(split_->grid(), dim3(regtile::Regtile::kThreads));
    kernel_<<<split_->grid(), regtile::Regtile::kThreads, 0, stream()>>>(
        a_.data(), b_.data(), split_->output(c_.data()), m(), n(), k(), tiles_m_, tiles_n_,
        split_->plan().k_chunk);
    RUNNER_CUDA_CHECK_LAUNCH();
    split_->reduce_into(c_.data(), gpu_info().sm_count, stream());
  }

  nlohmann::json extra_fields() const override {
    nlohmann::json fields = CudaGemm<float>::extra_fields();
    fields["path"] = split_k::describe(regtile::Regtile::BM, regtile::Regtile::BN, split_->plan());
    fields["k_splits"] = split_->plan().splits;
    return fields;
  }

 private:
  using Kernel = void (*)(const float*, const float*, float*, std::int64_t, std::int64_t,
                          std::int64_t, std::int64_t, std::int64_t, std::int64_t);
  std::int64_t tiles_m_, tiles_n_;
  Kernel kernel_ = nullptr;
  std::optional<split_k::SplitK<float>> split_;  // set once the kernel is chosen
};

}  // namespace

RUNNER_FACTORY(regtile, make_workload<RegtileGemm>);

}  // namespace runner::kernels::gemm
