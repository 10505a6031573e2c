// conv2d shared_reg: the shared-memory tile of `shared` plus register blocking. A fixed block of
// 32 × 8 threads computes a 128-column × 32-row output tile; each thread a 4 × 4 patch (4 rows of
// 4 adjacent columns) kept in accumulators, so every value it reads from shared memory serves up
// to 16 of its outputs. Filter in constant memory.
//
// Shared tile: image rows [row0 − r, row0 + 32 + r) × image columns [col0 − H, col0 + 128 + H),
// zeros outside the image, r = ks / 2 and H = r rounded up to a multiple of 4, so that the tile's
// rows and every thread's window start on 16-byte boundaries. It is copied with cp.async, whole
// 16-byte vectors (element by element only where a vector straddles the image's left or right
// edge); tiles wholly inside the image copy without bounds tests. Where the row length n is not
// a multiple of 4, image rows start at every offset from a 16-byte boundary: each tile row is
// then copied from the boundary before it, four floats of margin on the left, and each thread's
// output row is moved left by 0..3 columns so that its 4 outputs are one aligned float4 store.
// Both offsets depend only on the row's index mod 4, r and n mod 4 (tiles start on rows ≡ 0 mod
// 4), so they are compile-time constants of the instance for n mod 4 (conv2d_shared_reg.cuh).
//
// ks = 1 to 15: kernel template on KS, every loop unrolled. For each of the 4 + KS − 1 tile rows
// under its patch, a thread reads its window as float4s (LDS.128: a warp reads consecutive
// 16-byte vectors, no bank conflict) and does the FFMAs of every (output row, filter row) pair
// that uses it, weights as constant-bank operands: KS = 7 reads 10 rows of 3 vectors for 16 × 49
// FFMAs, KS = 15 18 rows of 5 for 16 × 225. Stores: one float4 per output row and thread. With
// ks² taps per output the kernel is FFMA-bound from ks = 9 on, and the fully unrolled taps with
// their weights as constant-bank operands are what count: register blocking with run-time filter
// loops ran 3.4 × slower than `naive` at ks = 15 on an H100 (12.8 ms against 3.8 at 8191 × 8193);
// the shared tile kernel below, which replaced it at ks = 11 to 15 for a while, ran 3.5 × slower
// than this one on an H200 (2.09 ms against 0.598 at ks = 15: 14.5 against 50.5 TFLOP/s).
//
// Any other odd ks (17..31): the shared-memory tile kernel of `shared` (conv2d_shared_tile.cuh,
// one output per thread, every tap loop unrolled for its ks) on 16 × 16 blocks, the record's path
// `shared_tile`: an unrolled instance of the register-blocked kernel per ks and n mod 4 would
// be up to 16 × 961 FFMAs long.
//
// Instances: one per ks ≤ 15 and n mod 4, the record's path "registers, 32-row tiles". (64-row
// tiles, 8 rows a thread or 16 warps a block, were measured beside them on an H200: within half a
// point at the largest aligned images, 1 to 13 points behind elsewhere; docs/performance.md.)
// Where rows are whole 32-byte sectors (n % 8 == 0) and ks ≤ 9 the same tiles run on a persistent
// grid instead, the path "registers, 32-row tiles, persistent": as many blocks as the GPU holds,
// each taking the next tile from a counter and copying it while it computes the one before
// (persistent_for below says what decided it).
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
#include "runner/api/cuda/residency.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::conv2d {

namespace {

namespace sr = shared_reg;
static_assert(sr::kMaxFilter == kMaxKernelSize);

using GridKernel = void (*)(const float*, float*, int, int);
using PersistentKernel = void (*)(const float*, float*, int, int, unsigned*, unsigned*);

// What one problem launches: a register-blocked kernel on a grid of whole tiles (`grid`) or its
// persistent form (`persistent`), or, both null, the shared tile kernel.
struct Instance {
  GridKernel grid = nullptr;
  PersistentKernel persistent = nullptr;
  int n_mod4 = 0;
  bool register_blocked() const { return grid || persistent; }
  const void* address() const {
    return persistent ? reinterpret_cast<const void*>(persistent)
                      : reinterpret_cast<const void*>(grid);
  }
  const char* path() const {
    if (persistent) return "registers, 32-row tiles, persistent";
    return grid ? "registers, 32-row tiles" : "shared_tile";
  }
};

// The shared tile path's block: the best of `shared`'s shapes at ks = 11..15 (conv2d.yaml).
constexpr BlockShape kSharedTileBlock{16, 16};
// Output rows a thread of the register-blocked kernel: a 32-row tile.
constexpr int kRows = 4;

// Which form runs filter side ks on rows of n floats: the persistent kernel where rows are whole
// 32-byte sectors (n % 8 == 0) and ks ≤ 9, the grid of whole tiles elsewhere. Measured on an H200
// (docs/performance.md, log), over 20 image sizes at ks = 3, 5, 7, as % of the copy kernel: where
// n % 8 == 0 the persistent kernel ran 2 to 11 points ahead at ks = 3 and 5 (8192²: 98 against
// 90 %) and up to 13 at ks = 7; where n % 8 != 0 it ran up to 6 points behind at ks = 3 (8191 ×
// 8193: 93 against 96 %). Nsight Compute puts the difference in DRAM throughput (8192², ks = 3: 79
// against 73 % of peak); why row alignment decides which schedule streams better was not found.
// From ks = 11 the kernel is bound by its FFMAs, and the persistent kernel's second tile buffer
// costs resident blocks (4 an SM against the grid's 5 in that run): it ran 2 to 8 % slower than
// the grid at ks = 11 to 15 on 2048² to 16384².
bool persistent_for(int ks, std::int64_t n) {
  return ks <= 9 && n % 8 == 0;
}

// The register-blocked instance of filter side KS for rows of n floats: the persistent kernel,
// or the grid kernel of n mod 4.
template <int KS>
Instance register_instance(std::int64_t n) {
  if constexpr (KS <= 9) {
    if (persistent_for(KS, n)) return {nullptr, sr::conv2d_shared_reg_persistent<KS, kRows>, 0};
  }
  switch (n % 4) {
    case 0:
      return {sr::conv2d_shared_reg<KS, kRows, 0>, nullptr, 0};
    case 1:
      return {sr::conv2d_shared_reg<KS, kRows, 1>, nullptr, 1};
    case 2:
      return {sr::conv2d_shared_reg<KS, kRows, 2>, nullptr, 2};
    default:
      return {sr::conv2d_shared_reg<KS, kRows, 3>, nullptr, 3};
  }
}
// The instance of filter side ks on rows of n floats: register-blocked for 1..15, the shared tile
// beyond.
Instance instance_for(int ks, std::int64_t n) {
  switch (ks) {
    case 1:
      return register_instance<1>(n);
    case 3:
      return register_instance<3>(n);
    case 5:
      return register_instance<5>(n);
    case 7:
      return register_instance<7>(n);
    case 9:
      return register_instance<9>(n);
    case 11:
      return register_instance<11>(n);
    case 13:
      return register_instance<13>(n);
    case 15:
      return register_instance<15>(n);
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
  if (inst.register_blocked()) return inst.address();
  return reinterpret_cast<const void*>(shared_kernel(ks));
}

BlockShape instance_block(const Instance& inst) {
  return inst.register_blocked() ? BlockShape{sr::kBlockX, sr::kBlockY} : kSharedTileBlock;
}

std::size_t instance_bytes(int ks, const Instance& inst) {
  if (!inst.register_blocked()) return shared_tile_bytes(kSharedTileBlock, ks);
  const std::size_t buffers = inst.persistent ? 2 : 1;  // the persistent kernel's pipeline
  return buffers * sr::shared_bytes(ks, kRows, inst.n_mod4);
}

class SharedReg final : public CudaConv2dBase {
 public:
  SharedReg(const Point& point, std::shared_ptr<const Problem> problem)
      : SharedReg(point, std::move(problem), checked_kernel_size(point)) {}

  void run() override {
    const BlockShape b = instance_block(inst_);
    const dim3 block(static_cast<unsigned>(b.x), static_cast<unsigned>(b.y));
    note_launch(grid_, block);
    if (inst_.persistent) {
      // Launches alternate between the two counters: each zeroes the other's for the next one.
      unsigned* counter = counters_.data() + launches_ % 2;
      unsigned* spare = counters_.data() + (launches_ + 1) % 2;
      ++launches_;
      inst_.persistent<<<grid_, block, shared_bytes_, stream()>>>(in_.data(), out_.data(), m(), n(),
                                                                  counter, spare);
    } else if (inst_.grid) {
      inst_.grid<<<grid_, block, shared_bytes_, stream()>>>(in_.data(), out_.data(), m(), n());
    } else {
      shared_kernel(p_.ks)<<<grid_, block, shared_bytes_, stream()>>>(
          in_.data(), out_.data(), m(), n(), tile_pitch(kSharedTileBlock.x, p_.ks / 2));
    }
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
    if (inst_.persistent) {
      grid_ = sr::persistent_grid(
          m(), n(), kRows,
          cuda::residency(inst_.address(), sr::kBlockX * sr::kBlockY, shared_bytes_).blocks);
      counters_ = cuda::DeviceBuffer<unsigned>(2);
      RUNNER_CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, 2 * sizeof(unsigned), stream()));
    } else if (inst_.grid) {
      grid_ = sr::grid_for(m(), n(), kRows, inst_.n_mod4);
    } else {
      // One block per 16 × 16 outputs; the kernel loops over block rows beyond gridDim.y's limit.
      const std::int64_t bx = kSharedTileBlock.x, by = kSharedTileBlock.y;
      grid_ = dim3(static_cast<unsigned>((p_.n + bx - 1) / bx),
                   static_cast<unsigned>(std::min<std::int64_t>((p_.m + by - 1) / by, kMaxGridY)));
    }
    // Each path reads its own constant copy of the filter.
    h2d_ms_ += time_on_stream([&] {
      RUNNER_CUDA_CHECK(cudaMemcpyToSymbolAsync(
          inst_.register_blocked() ? sr::c_weights_reg : c_weights, p_.weights.data(),
          p_.weights.size() * sizeof(float), 0, cudaMemcpyHostToDevice, stream()));
    });
  }

  Instance inst_;
  std::size_t shared_bytes_;
  dim3 grid_;
  cuda::DeviceBuffer<unsigned> counters_;  // the persistent kernel's tile counters
  std::uint64_t launches_ = 0;
};

}  // namespace

RUNNER_FACTORY(shared_reg, make_workload<SharedReg>);

}  // namespace runner::kernels::conv2d
