// conv2d shared_reg: the shared-memory tile of `shared` plus register blocking. A fixed block of
// 32 × 8 threads computes a 128-column × (8 · ROWS)-row output tile; each thread a ROWS × 4 patch
// (ROWS rows of 4 adjacent columns) kept in accumulators, so every value it reads from shared
// memory serves up to ROWS × 4 of its outputs. Filter in constant memory. Described below for
// ROWS = 4 (a 32-row tile); instance_for() says which ROWS a problem runs.
//
// Shared tile: image rows [row0 − r, row0 + 32 + r) × image columns [col0 − H, col0 + 128 + H),
// zeros outside the image, r = ks / 2 and H = r rounded up to a multiple of 4, so that the tile's
// rows (pitch 128 + 2H floats) and every thread's window start on 16-byte boundaries. It is loaded
// with 16-byte vectors (float4 global loads where the image row length n is a multiple of 4, which
// makes every vector of a tile row wholly inside or wholly outside the image; element by element
// otherwise) and 16-byte shared stores.
//
// ks = 1, 3, 5, 7 (and 9, whose r = 4 = H): kernel template on KS, every loop unrolled. For each
// of the kRows + KS − 1 tile rows under its patch, a thread reads its window of 4 + 2H floats as
// float4s (LDS.128: a warp reads 32 consecutive 16-byte vectors, no bank conflict) and does the
// FFMAs of every (output row, filter row) pair that uses it, weights as constant-bank operands:
// KS = 7 reads 10 rows × 12 floats for 16 × 49 FFMAs. Stores: one float4 per output row and
// thread (a warp writes 512 contiguous bytes) where n is a multiple of 4, else guarded scalars.
//
// Any other odd ks (11..31): the shared-memory tile kernel of `shared` (conv2d_shared_tile.cuh,
// one output per thread, every tap loop unrolled for its ks) on 16 × 16 blocks, the record's path
// `shared_tile`. Register blocking with run-time filter loops, which this path replaced, ran 3.4 ×
// slower than `naive` at ks = 15 on an H100 (12.8 ms against 3.8 at 8191 × 8193) and 4.6 × at
// ks = 13 on an H200 (3.18 ms against 0.69 at 5000²), where `shared` 16 × 16 took 0.60 ms: with
// ks² taps per output, the kernel is FFMA-bound, and the fully unrolled taps with their weights
// as constant-bank operands are what count.
//
// Instances (kernels/conv2d/conv2d_shared_reg.cuh): the tile height (8 · ROWS output rows, ROWS
// per thread) is a template parameter; instance_for() below says which each problem runs, chosen
// on an H200 (docs/performance.md): a 32-row tile where n is a multiple of 4, a 64-row tile
// otherwise, where every tile row is copied element by element and the halo rows it saves cost
// four copies a vector (8191 × 8193, k = 3 / 5 / 7: 75 / 71 / 56 % of the copy kernel with 64
// rows against 70 / 62 / 53 % with 32; at 8192², 91 / 89 / 71 % with 32 rows, 92 / 88 / 69 %
// with 64). The record's path says which: "registers, 32-row tiles" or "registers, 64-row tiles".
//
// Any image size: partial tiles are guarded on store, the loads zero-fill outside the image, and
// tile rows beyond gridDim.y's limit are covered by a loop.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "kernels/conv2d/conv2d_constant_filter.cuh"
#include "kernels/conv2d/conv2d_cuda_workload.hpp"
#include "kernels/conv2d/conv2d_problem.hpp"
#include "kernels/conv2d/conv2d_shared_reg.cuh"
#include "kernels/conv2d/conv2d_shared_tile.cuh"
#include "runner/api/cuda/cuda_workload.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::conv2d {

namespace {

namespace sr = shared_reg;
static_assert(sr::kMaxFilter == kMaxKernelSize);

using SpecialisedKernel = void (*)(const float*, float*, int, int);

// What one problem launches: a register-blocked instance, or (kernel null) the shared tile kernel.
struct Instance {
  SpecialisedKernel kernel = nullptr;
  int rows = 4;
  const char* path() const {
    return !kernel     ? "shared_tile"
           : rows == 8 ? "registers, 64-row tiles"
                       : "registers, 32-row tiles";
  }
};

// The shared tile path's block: the best of `shared`'s shapes at ks = 11..15 (conv2d.yaml).
constexpr BlockShape kSharedTileBlock{16, 16};

template <int KS, int ROWS>
constexpr Instance instance() {
  return {sr::conv2d_shared_reg<KS, ROWS>, ROWS};
}

// The instance of filter side ks on rows of n floats: register-blocked for 1..9 (32-row tiles
// where n is a multiple of 4, 64-row tiles otherwise), the shared tile beyond.
template <int KS>
Instance register_instance(bool vector_rows) {
  return vector_rows ? instance<KS, 4>() : instance<KS, 8>();
}
Instance instance_for(int ks, std::int64_t n) {
  const bool vector_rows = n % 4 == 0;
  switch (ks) {
    case 1:
      return register_instance<1>(vector_rows);
    case 3:
      return register_instance<3>(vector_rows);
    case 5:
      return register_instance<5>(vector_rows);
    case 7:
      return register_instance<7>(vector_rows);
    case 9:
      return register_instance<9>(vector_rows);
    default:
      return {};
  }
}

// The filter side of a point, with the rules of the other CUDA conv2d variants.
int checked_kernel_size(const Point& point) {
  const int ks = point.kernel_size.value_or(3);
  if (ks < 1 || ks > kMaxKernelSize || ks % 2 == 0)
    throw PointInvalid("the CUDA conv2d kernels exist for odd kernel_size 1.." +
                       std::to_string(kMaxKernelSize) + ", not " + std::to_string(ks));
  return ks;
}

const void* kernel_address(int ks, const Instance& inst) {
  if (inst.kernel) return reinterpret_cast<const void*>(inst.kernel);
  return reinterpret_cast<const void*>(shared_kernel(ks));
}

BlockShape instance_block(const Instance& inst) {
  return inst.kernel ? BlockShape{sr::kBlockX, sr::kBlockY} : kSharedTileBlock;
}

std::size_t instance_bytes(int ks, const Instance& inst) {
  return inst.kernel ? sr::shared_bytes(ks, inst.rows) : shared_tile_bytes(kSharedTileBlock, ks);
}

class SharedReg final : public CudaConv2dBase {
 public:
  SharedReg(const Point& point, std::shared_ptr<const Problem> problem)
      : SharedReg(point, std::move(problem), checked_kernel_size(point)) {}

  void run() override {
    const BlockShape b = instance_block(inst_);
    const dim3 block(static_cast<unsigned>(b.x), static_cast<unsigned>(b.y));
    note_launch(grid_, block);
    if (inst_.kernel)
      inst_.kernel<<<grid_, block, shared_bytes_, stream()>>>(in_.data(), out_.data(), m(), n());
    else
      shared_kernel(p_.ks)<<<grid_, block, shared_bytes_, stream()>>>(
          in_.data(), out_.data(), m(), n(), tile_pitch(kSharedTileBlock.x, p_.ks / 2));
    RUNNER_CUDA_CHECK_LAUNCH();
  }

  nlohmann::json extra_fields() const override {
    nlohmann::json fields = CudaConv2dBase::extra_fields();
    fields["path"] = inst_.path();
    return fields;
  }

 private:
  SharedReg(const Point& point, std::shared_ptr<const Problem> problem, int ks)
      : SharedReg(point, std::move(problem), ks, instance_for(ks, point.size->n)) {}
  SharedReg(const Point& point, std::shared_ptr<const Problem> problem, int ks, Instance inst)
      : CudaConv2dBase(point, std::move(problem), kernel_address(ks, inst), instance_block(inst),
                       instance_bytes(ks, inst)),
        inst_(inst),
        shared_bytes_(instance_bytes(ks, inst_)) {
    if (inst_.kernel) {
      grid_ = sr::grid_for(m(), n(), inst_.rows);
    } else {
      // One block per 16 × 16 outputs; the kernel loops over block rows beyond gridDim.y's limit.
      const std::int64_t bx = kSharedTileBlock.x, by = kSharedTileBlock.y;
      grid_ = dim3(static_cast<unsigned>((p_.n + bx - 1) / bx),
                   static_cast<unsigned>(std::min<std::int64_t>((p_.m + by - 1) / by, kMaxGridY)));
    }
    // Each path reads its own constant copy of the filter.
    h2d_ms_ += time_on_stream([&] {
      RUNNER_CUDA_CHECK(cudaMemcpyToSymbolAsync(
          inst_.kernel ? sr::c_weights_reg : c_weights, p_.weights.data(),
          p_.weights.size() * sizeof(float), 0, cudaMemcpyHostToDevice, stream()));
    });
  }

  Instance inst_;
  std::size_t shared_bytes_;
  dim3 grid_;
};

}  // namespace

RUNNER_FACTORY(shared_reg, make_workload<SharedReg>);

}  // namespace runner::kernels::conv2d
