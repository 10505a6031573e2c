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
// Kernel template on KS, an instance per odd ks from 1 to 31 (conv2d_shared_reg.cuh,
// compute_store). Stores: one float4 per output row and thread.
// - ks = 1 to 15: every loop unrolled. For each of the 4 + KS − 1 tile rows under its patch, a
//   thread reads its window as float4s (LDS.128: a warp reads consecutive 16-byte vectors, no
//   bank conflict) and does the FFMAs of every (output row, filter row) pair that uses it, weights
//   as constant-bank operands: KS = 7 reads 10 rows of 3 vectors for 16 × 49 FFMAs, KS = 15 18
//   rows of 5 for 16 × 225. 40 registers, six blocks an SM.
// - ks = 17 to 31 (whole unrolling would be up to 16 × 961 FFMAs): the filter rows in a run-time
//   loop, four at a time so that each tile row's shift stays a compile-time constant; the taps
//   of a row still unrolled, the row's weights loaded into registers once and a window read for
//   each output row. 98 to 128 registers, two blocks an SM.
// With ks² taps per output the kernel is FFMA-bound from ks = 9 on, and unrolled taps are what
// count: register blocking with run-time loops over the taps too ran 3.4 × slower than `naive`
// at ks = 15 on an H100 (12.8 ms against 3.8 at 8191 × 8193), and the shared tile kernel of
// `shared` that replaced it (one output per thread, every tap unrolled) ran, on an H200, 3.5 ×
// slower than this kernel at ks = 15 (2.09 ms against 0.598: 14.5 against 50.5 TFLOP/s) and 3.4 ×
// at ks = 31 (8.26 ms against 2.40).
//
// Instances: one per ks and n mod 4, the record's path "registers, 32-row tiles". (64-row
// tiles, 8 rows a thread or 16 warps a block, were measured beside them on an H200: within half a
// point at the largest aligned images, 1 to 13 points behind elsewhere; docs/performance.md.)
// Where rows are whole 32-byte sectors (n % 8 == 0) and ks ≤ 9, and at ks = 7 for every n, the
// same tiles run on a persistent grid instead, the path "registers, 32-row tiles, persistent": as
// many blocks as the GPU holds, each taking the next tile from a counter and copying it while it
// computes the one before (persistent_for below says what decided it).
//
// Any image size: partial tiles are guarded on store, the loads zero-fill outside the image, and
// tile rows beyond gridDim.y's limit are covered by a loop.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "kernels/conv2d/conv2d_cuda_workload.hpp"
#include "kernels/conv2d/conv2d_problem.hpp"
#include "kernels/conv2d/conv2d_shared_reg.cuh"
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

// What one problem launches: the kernel on a grid of whole tiles (`grid`) or its persistent form
// (`persistent`), and the n mod 4 its tiles were compiled for.
struct Instance {
  GridKernel grid = nullptr;
  PersistentKernel persistent = nullptr;
  int n_mod4 = 0;
  const void* address() const {
    return persistent ? reinterpret_cast<const void*>(persistent)
                      : reinterpret_cast<const void*>(grid);
  }
  const char* path() const {
    return persistent ? "registers, 32-row tiles, persistent" : "registers, 32-row tiles";
  }
};

// Output rows a thread: a 32-row tile.
constexpr int kRows = 4;

// Which form runs filter side ks on rows of n floats: the persistent kernel where rows are whole
// 32-byte sectors (n % 8 == 0) and ks ≤ 9, and at ks = 7 for every n (an instance per n mod 4);
// the grid of whole tiles elsewhere. Measured on an H200 (docs/performance.md, log), as % of the
// copy kernel: over 20 image sizes at ks = 3, 5, 7, where n % 8 == 0 the persistent kernel ran 2
// to 11 points ahead at ks = 3 and 5 (8192²: 98 against 90 %) and up to 13 at ks = 7; where
// n % 8 != 0 it ran up to 6 points behind at ks = 3 and 5 (8191 × 8193: 93 against 96 %), but 1
// to 4 points ahead at ks = 7 from 4097 × 4095 up (8191 × 8193: 76 against 72.5 %; 2047²: 1.5 to
// 3.5 behind) and up to 2 behind at ks = 9. Nsight Compute puts the difference at ks = 3 in DRAM
// throughput (8192²: 79 against 73 % of peak); why row alignment decides which schedule streams
// better was not found. From ks = 11 the kernel is bound by its FFMAs, and the persistent kernel's
// second tile buffer costs resident blocks (4 an SM against the grid's 5 in that run): it ran 2 to
// 8 % slower than the grid at ks = 11 to 15 on 2048² to 16384².
constexpr int kMaxPersistent = 9;       // the widest filter the persistent kernel runs
constexpr int kPersistentAtEveryN = 7;  // the filter it runs at every row length
bool persistent_for(int ks, std::int64_t n) {
  return ks == kPersistentAtEveryN || (ks <= kMaxPersistent && n % 8 == 0);
}

// make(std::integral_constant<int, n mod 4>): the instances compiled per n mod 4.
template <class Make>
Instance by_n_mod4(std::int64_t n, Make make) {
  switch (n % 4) {
    case 0:
      return make(std::integral_constant<int, 0>{});
    case 1:
      return make(std::integral_constant<int, 1>{});
    case 2:
      return make(std::integral_constant<int, 2>{});
    default:
      return make(std::integral_constant<int, 3>{});
  }
}

// The instance of filter side KS for rows of n floats: the persistent kernel (of n mod 4 where it
// runs at every n; where it needs n % 8 == 0, its instance for n ≡ 0 mod 4), or the grid kernel
// of n mod 4.
template <int KS>
Instance register_instance(std::int64_t n) {
  if constexpr (KS <= kMaxPersistent) {
    if (persistent_for(KS, n)) {
      if constexpr (KS == kPersistentAtEveryN) {
        return by_n_mod4(n, [](auto r) {
          constexpr int kMod = decltype(r)::value;
          return Instance{nullptr, sr::conv2d_shared_reg_persistent<KS, kRows, kMod>, kMod};
        });
      } else {
        return {nullptr, sr::conv2d_shared_reg_persistent<KS, kRows, 0>, 0};
      }
    }
  }
  return by_n_mod4(n, [](auto r) {
    constexpr int kMod = decltype(r)::value;
    return Instance{sr::conv2d_shared_reg<KS, kRows, kMod>, nullptr, kMod};
  });
}
// The instance of filter side ks (odd, 1 to kMaxKernelSize: checked_kernel_size) on rows of n
// floats.
template <int KS = 1>
Instance instance_for(int ks, std::int64_t n) {
  if constexpr (KS > kMaxKernelSize) {
    throw PointInvalid("no shared_reg instance for kernel_size " + std::to_string(ks));
  } else {
    return ks == KS ? register_instance<KS>(n) : instance_for<KS + 2>(ks, n);
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

constexpr BlockShape kBlock{sr::kBlockX, sr::kBlockY};

std::size_t instance_bytes(int ks, const Instance& inst) {
  const std::size_t buffers = inst.persistent ? 2 : 1;  // the persistent kernel's pipeline
  return buffers * sr::shared_bytes(ks, kRows, inst.n_mod4);
}

class SharedReg final : public CudaConv2dBase {
 public:
  SharedReg(const Point& point, std::shared_ptr<const Problem> problem)
      : SharedReg(point, std::move(problem), checked_kernel_size(point)) {}

  void run() override {
    const dim3 block(static_cast<unsigned>(kBlock.x), static_cast<unsigned>(kBlock.y));
    note_launch(grid_, block);
    if (inst_.persistent) {
      // Launches alternate between the two counters: each zeroes the other's for the next one.
      unsigned* counter = counters_.data() + launches_ % 2;
      unsigned* spare = counters_.data() + (launches_ + 1) % 2;
      ++launches_;
      inst_.persistent<<<grid_, block, shared_bytes_, stream()>>>(in_.data(), out_.data(), m(), n(),
                                                                  counter, spare);
    } else {
      inst_.grid<<<grid_, block, shared_bytes_, stream()>>>(in_.data(), out_.data(), m(), n());
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
      : CudaConv2dBase(point, std::move(problem), inst.address(), kBlock, instance_bytes(ks, inst)),
        inst_(inst),
        shared_bytes_(instance_bytes(ks, inst_)) {
    if (inst_.persistent) {
      grid_ = sr::persistent_grid(
          m(), n(), kRows, inst_.n_mod4,
          cuda::residency(inst_.address(), static_cast<int>(kBlock.threads()), shared_bytes_)
              .blocks);
      counters_ = cuda::DeviceBuffer<unsigned>(2);
      RUNNER_CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, 2 * sizeof(unsigned), stream()));
    } else {
      grid_ = sr::grid_for(m(), n(), kRows, inst_.n_mod4);
    }
    h2d_ms_ += time_on_stream([&] {
      RUNNER_CUDA_CHECK(cudaMemcpyToSymbolAsync(sr::c_weights_reg, p_.weights.data(),
                                                p_.weights.size() * sizeof(float), 0,
                                                cudaMemcpyHostToDevice, stream()));
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
