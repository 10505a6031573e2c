// Launch side of the `regtile` variant (FP32 SIMT GEMM with register tiles; the kernel template
// and its design are in gemm_regtile.cuh). The tiling is tuned and fixed (regtile::Regtile): the
// variant has no block axis. Where C has too few tiles to fill the GPU (small or deep-K problems)
// k is split (gemm_split_k.cuh); where k or n is not a multiple of 4, A or B is first copied to
// 16-byte rows (gemm_padded_operands.cuh). The record's `path` and `k_splits` say which.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "kernels/gemm/gemm_cuda_workload.hpp"
#include "kernels/gemm/gemm_padded_operands.cuh"
#include "kernels/gemm/gemm_regtile.cuh"
#include "kernels/gemm/gemm_split_k.cuh"
#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/cuda/residency.hpp"
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
template <class Tiles>
const Point& require_grid(const Point& point) {
  if (point.dtype && *point.dtype != Dtype::f32)
    throw PointInvalid("regtile requires dtype float (it is an FP32 kernel)");
  const ProblemSize& s = *point.size;
  if (ceil_div(s.m, Tiles::BM) * ceil_div(s.n, Tiles::BN) > kMaxGridX)
    throw PointInvalid("size " + to_string(s) + " needs more than 2^31-1 blocks");
  return point;
}

// The split-K cost model's figures for this kernel: one 128×128×16 k-step of a block takes
// 2.9 µs with 2 blocks on every SM (47.3 TFLOP/s over 264 blocks at 4096³ on the H100), scaled by
// the tile's work and the blocks an SM holds for another tiling; the workspace moves at about
// 3 TB/s (it mostly stays in the L2).
//
// A block alone on its SM takes 0.572 of that k-step: its SM then runs at 87 % of its rate with
// two (H200, no split, k = 4096: 1024 × 2048, 128 blocks, 402.8 µs; 2048 × 2048, 256 blocks,
// 704.4 µs; 1024 × 1024 and 1536 × 1536, 64 and 144 blocks, the same two times). Counting a last
// wave of lone blocks as full made the plan cut k finer than pays (513³ into 7 chunks, 175
// blocks, two on 43 SMs: 32.2 µs against 26.4 with 5). Chunks of 2 k-steps pay at the smallest
// sizes (256³: 8 splits, 8.8 µs against 11.5 with 4). With these figures the plan's split runs
// at 96 % or more of the speed of the fastest of splits 1–8, each forced, at 30 problems from 256³
// to 2048 × 2560 × 4096 (77 % or more before; docs/performance.md, Log).
template <class Tiles>
split_k::CostModel cost_model(const void* kernel) {
  const cuda::Residency resident = cuda::residency(kernel, Tiles::kThreads, 0);
  split_k::CostModel cost;
  cost.slots = resident.blocks;
  cost.step_us = 2.9 * (double{Tiles::BM} * Tiles::BN * Tiles::BK / (128.0 * 128 * 16)) *
                 (resident.per_sm / 2.0);
  cost.bytes_per_us = 3.0e6;
  cost.sms = resident.per_sm > 0 ? resident.blocks / resident.per_sm : 0;
  cost.lone_block_share = resident.per_sm >= 2 ? 0.572 : 0;
  cost.min_chunk_steps = 2;
  return cost;
}

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

template <class Tiles>
class RegtileGemm final : public CudaGemm<float> {
 public:
  RegtileGemm(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaGemm<float>(require_grid<Tiles>(point), std::move(problem)),
        tiles_m_(ceil_div(m(), Tiles::BM)),
        tiles_n_(ceil_div(n(), Tiles::BN)),
        a_rows_(a_.data(), m(), k()),
        b_rows_(b_.data(), k(), n()) {
    // float4 loads need every row of A (k floats) and B (n floats) on a 16-byte boundary: where k
    // or n is not a multiple of 4 that operand is copied to padded rows first, unless the device
    // has no room for the copy (then the scalar instance runs).
    const bool aligned = aligned16(a_.data()) && aligned16(b_.data()) && aligned16(c_.data());
    copies_ = aligned && (a_rows_.needs_copy() || b_rows_.needs_copy()) &&
              padded::allocate_copies(a_rows_, b_rows_);
    const bool vec_loads = aligned && (copies_ || (!a_rows_.needs_copy() && !b_rows_.needs_copy()));
    kernel_ = vec_loads ? regtile::regtile_kernel<Tiles, true, true>
                        : regtile::regtile_kernel<Tiles, false, false>;
    cuda::require_launchable(BlockShape{Tiles::kThreads, 1}, 0,
                             reinterpret_cast<const void*>(kernel_));
    // The workspace of a split k has rows of whole float4s whatever n is, so that the partial
    // tiles are stored as vectors (gemm_split_k.cuh, SplitK).
    split_.emplace(cost_model<Tiles>(reinterpret_cast<const void*>(kernel_)), tiles_m_ * tiles_n_,
                   m(), n(), k(), Tiles::BK, padded::padded_row<float>(n()));
    // float4 stores need the rows of what the kernel writes on 16-byte boundaries: C's where
    // n % 4 == 0, the workspace's always.
    if (vec_loads && split_->output_ld() % 4 != 0)
      kernel_ = regtile::regtile_kernel<Tiles, true, false>;
  }

  void run() override {
    const int sms = gpu_info().sm_count;
    const float* a = a_.data();
    const float* b = b_.data();
    std::int64_t lda = k(), ldb = n();
    if (copies_) {
      padded::copy_padded(a_rows_, b_rows_, sms, stream());
      a = a_rows_.data(), b = b_rows_.data(), lda = a_rows_.ld(), ldb = b_rows_.ld();
    }
    note_launch(split_->grid(), dim3(Tiles::kThreads));
    float* const out = split_->output(c_.data());
    const std::int64_t ldc = split_->output_ld();
    const std::int64_t k_chunk = split_->plan().k_chunk;
    if (copies_) {  // the GEMM's launch overlaps the copy's end (dependent_launch.cuh)
      launch_dependent(kernel_, split_->grid(), dim3(Tiles::kThreads), 0, stream(), a, b, out, m(),
                       n(), k(), lda, ldb, ldc, tiles_m_, tiles_n_, k_chunk);
    } else {
      kernel_<<<split_->grid(), Tiles::kThreads, 0, stream()>>>(a, b, out, m(), n(), k(), lda, ldb,
                                                                ldc, tiles_m_, tiles_n_, k_chunk);
      RUNNER_CUDA_CHECK_LAUNCH();
    }
    split_->reduce_into(c_.data(), sms, stream());
  }

  nlohmann::json extra_fields() const override {
    nlohmann::json fields = CudaGemm<float>::extra_fields();
    std::string path = split_k::describe(Tiles::BM, Tiles::BN, split_->plan()) +
                       padded::describe_copies(a_rows_, b_rows_, copies_);
    if (!copies_ && (a_rows_.needs_copy() || b_rows_.needs_copy())) path += ", scalar loads";
    fields["path"] = path;
    fields["k_splits"] = split_->plan().splits;
    return fields;
  }

 private:
  using Kernel = void (*)(const float*, const float*, float*, std::int64_t, std::int64_t,
                          std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                          std::int64_t, std::int64_t);
  std::int64_t tiles_m_, tiles_n_;
  padded::PaddedOperand<float> a_rows_, b_rows_;  // A (m×k) and B (k×n) as the kernel reads them
  bool copies_ = false;                           // A or B is read from its padded copy
  Kernel kernel_ = nullptr;
  std::optional<split_k::SplitK<float>> split_;  // set once the kernel is chosen
};

}  // namespace

RUNNER_FACTORY(regtile, make_workload<RegtileGemm<regtile::Regtile>>);

}  // namespace runner::kernels::gemm
