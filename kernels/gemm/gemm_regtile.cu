// Launch side of the `regtile` variant (FP32 SIMT GEMM with register tiles; the kernel template
// and its design are in gemm_regtile.cuh). The tiling is tuned and fixed (regtile::Regtile): the
// variant has no block axis. Where C has too few tiles to fill the GPU (small or deep-K problems)
// k is split (gemm_split_k.cuh); where k or n is not a multiple of 4, A or B is copied to 16-byte
// rows (gemm_padded_operands.cuh) for the float4 loads, or read as it is by the scalar-load
// instance: the faster of the two on this GPU and problem, timed at set-up. The record's `path`
// and `k_splits` say which, its `message` what the timing measured.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/gemm/gemm_cuda_workload.hpp"
#include "kernels/gemm/gemm_padded_operands.cuh"
#include "kernels/gemm/gemm_regtile.cuh"
#include "kernels/gemm/gemm_split_k.cuh"
#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/cuda/fastest_launch.hpp"
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

// Where k or n is not a multiple of 4 the copies and the scalar instance are timed at set-up
// (padded::Loads). On an H200 the scalar instance ran 3 to 9 points of cuBLAS ahead from 257³ to
// 511³, level near 513³ to 801³, 4 to 6 points behind from 1000³ up (docs/performance.md, Log).
constexpr int kTimedLaunches = 5;  // of each candidate, at set-up
constexpr const char* kPinLoads = "RUNNER_REGTILE_LOADS";

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
    // or n is not a multiple of 4 that operand is copied to padded rows first, or the scalar
    // instance reads it as it is (Loads). Without room for the copies the scalar instance runs.
    const bool aligned = aligned16(a_.data()) && aligned16(b_.data()) && aligned16(c_.data());
    const bool misaligned = a_rows_.needs_copy() || b_rows_.needs_copy();
    const std::optional<padded::Loads> pinned =
        padded::pinned_loads(kPinLoads);  // checked at every size
    const bool copies = aligned && misaligned && pinned != padded::Loads::scalar &&
                        padded::allocate_copies(a_rows_, b_rows_);
    route_ = make_route(aligned && (copies || !misaligned), copies);
    if (copies && !pinned) {
      Route scalar = make_route(false, false);
      const std::vector<std::function<void()>> launches{[this] { launch(route_); },
                                                        [this, &scalar] { launch(scalar); }};
      const cuda::LaunchRanking ranking = cuda::fastest_launch(launches, stream(), kTimedLaunches);
      choice_ = padded::timed_loads_message(kTimedLaunches, describe(route_), ranking.median_ms[0],
                                            describe(scalar), ranking.median_ms[1]);
      if (ranking.fastest == 1) {
        route_ = std::move(scalar);
        a_rows_.release();  // the copies are not read
        b_rows_.release();
      }
    }
  }

  void run() override { launch(route_); }

  nlohmann::json extra_fields() const override {
    nlohmann::json fields = CudaGemm<float>::extra_fields();
    fields["path"] = describe(route_);
    fields["k_splits"] = route_.split->plan().splits;
    if (!choice_.empty()) fields["message"] = choice_;
    return fields;
  }

 private:
  using Kernel = void (*)(const float*, const float*, float*, std::int64_t, std::int64_t,
                          std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                          std::int64_t, std::int64_t);
  // One way to run the problem: the kernel instance, whether A and B are read from their padded
  // copies, and the split of k planned for that instance.
  struct Route {
    Kernel kernel = nullptr;
    bool copies = false;
    std::optional<split_k::SplitK<float>> split;
  };

  // float4 loads (on A and B as they are, or on their copies) or scalar ones; float4 stores where
  // the rows the kernel writes start on 16-byte boundaries: C's where n % 4 == 0, the split-K
  // workspace's always (gemm_split_k.cuh, SplitK).
  Route make_route(bool vec_loads, bool copies) {
    Route route;
    route.copies = copies;
    const Kernel planned = vec_loads ? regtile::regtile_kernel<Tiles, true, true>
                                     : regtile::regtile_kernel<Tiles, false, false>;
    route.split.emplace(cost_model<Tiles>(reinterpret_cast<const void*>(planned)),
                        tiles_m_ * tiles_n_, m(), n(), k(), Tiles::BK,
                        padded::padded_row<float>(n()));
    const bool vec_stores =
        aligned16(route.split->output(c_.data())) && route.split->output_ld() % 4 == 0;
    if (vec_loads)
      route.kernel = vec_stores ? regtile::regtile_kernel<Tiles, true, true>
                                : regtile::regtile_kernel<Tiles, true, false>;
    else
      route.kernel = vec_stores ? regtile::regtile_kernel<Tiles, false, true>
                                : regtile::regtile_kernel<Tiles, false, false>;
    cuda::require_launchable(BlockShape{Tiles::kThreads, 1}, 0,
                             reinterpret_cast<const void*>(route.kernel));
    return route;
  }

  void launch(const Route& route) {
    const int sms = gpu_info().sm_count;
    const float* a = a_.data();
    const float* b = b_.data();
    std::int64_t lda = k(), ldb = n();
    if (route.copies) {
      padded::copy_padded(a_rows_, b_rows_, sms, stream());
      a = a_rows_.data(), b = b_rows_.data(), lda = a_rows_.ld(), ldb = b_rows_.ld();
    }
    const split_k::SplitK<float>& split = *route.split;
    note_launch(split.grid(), dim3(Tiles::kThreads));
    float* const out = split.output(c_.data());
    const std::int64_t ldc = split.output_ld();
    const std::int64_t k_chunk = split.plan().k_chunk;
    if (route.copies) {  // the GEMM's launch overlaps the copy's end (dependent_launch.cuh)
      launch_dependent(route.kernel, split.grid(), dim3(Tiles::kThreads), 0, stream(), a, b, out,
                       m(), n(), k(), lda, ldb, ldc, tiles_m_, tiles_n_, k_chunk);
    } else {
      route.kernel<<<split.grid(), Tiles::kThreads, 0, stream()>>>(
          a, b, out, m(), n(), k(), lda, ldb, ldc, tiles_m_, tiles_n_, k_chunk);
      RUNNER_CUDA_CHECK_LAUNCH();
    }
    split.reduce_into(c_.data(), sms, stream());
  }

  std::string describe(const Route& route) const {
    std::string path = split_k::describe(Tiles::BM, Tiles::BN, route.split->plan()) +
                       padded::describe_copies(a_rows_, b_rows_, route.copies);
    if (!route.copies && (a_rows_.needs_copy() || b_rows_.needs_copy())) path += ", scalar loads";
    return path;
  }

  std::int64_t tiles_m_, tiles_n_;
  padded::PaddedOperand<float> a_rows_, b_rows_;  // A (m×k) and B (k×n) as the kernel reads them
  Route route_;                                   // what runs
  std::string choice_;                            // how the route was chosen, where both were timed
};

}  // namespace

RUNNER_FACTORY(regtile, make_workload<RegtileGemm<regtile::Regtile>>);

}  // namespace runner::kernels::gemm
