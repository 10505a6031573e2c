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
// To ks = 9 the same tiles also run on a persistent grid, the path "registers, 32-row tiles,
// persistent": as many blocks as the GPU holds, each taking the next tile from a counter and
// copying it while it computes the one before. Which of the two forms runs is timed at set-up on
// the point's own image (kMaxPersistent below says why, and what was measured).
//
// Any image size: partial tiles are guarded on store, the loads zero-fill outside the image, and
// tile rows beyond gridDim.y's limit are covered by a loop.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "kernels/conv2d/conv2d_cuda_workload.hpp"
#include "kernels/conv2d/conv2d_problem.hpp"
#include "kernels/conv2d/conv2d_shared_reg.cuh"
#include "runner/api/cuda/cuda_workload.hpp"
#include "runner/api/cuda/fastest_launch.hpp"
#include "runner/api/cuda/residency.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::conv2d {

namespace {

namespace sr = shared_reg;
static_assert(sr::kMaxFilter == kMaxKernelSize);

using GridKernel = void (*)(const float*, float*, int, int);
using PersistentKernel = void (*)(const float*, float*, int, int, unsigned*, unsigned*);

// The two forms of one problem's kernel, compiled for the n mod 4 of its rows: on a grid of whole
// tiles (`grid`), and persistent (`persistent`; null where ks > kMaxPersistent).
struct Forms {
  GridKernel grid = nullptr;
  PersistentKernel persistent = nullptr;
  int n_mod4 = 0;
};
enum class Form { grid, persistent };

const char* path_of(Form form) {
  return form == Form::persistent ? "registers, 32-row tiles, persistent"
                                  : "registers, 32-row tiles";
}

// Output rows a thread: a 32-row tile.
constexpr int kRows = 4;

// Which form runs: where both exist (ks ≤ kMaxPersistent), the faster of the two on this device
// and this image, timed at set-up (cuda::fastest_launch). No rule of filter side, size and row
// alignment ranks them right on every GPU. As % of the copy kernel on the same image, in one run
// each (docs/performance.md):
// - rows of whole 32-byte sectors (n % 8 == 0), ks = 3 to 9: persistent ahead on both an H100 and
//   an H200, by 5 to 11 points at ks = 3 and 5 from 4096² up (H100 8192²: 101 against 93 %);
// - other rows, ks = 3 and 5: the grid ahead on both, by up to 4 (H100) and 6 points (H200);
// - other rows, ks = 7: the grid ahead on the H100 (8191 × 8193: 93 against 89 %), persistent
//   ahead on the H200 (76 against 72.5 %): at the H100's lower memory bandwidth the kernel is
//   bound by memory there, by instruction issue on the H200;
// - other rows, ks = 9: within 2 points, persistent ahead on the H100, the grid on the H200.
// From ks = 11 the kernel is bound by its FFMAs, and the persistent kernel's second tile buffer
// costs resident blocks (4 an SM against the grid's 5 in that run): it ran 2 to 8 % slower than the
// grid at ks = 11 to 15 on 2048² to 16384² on the H200, so it is not compiled beyond ks = 9.
// RUNNER_CONV2D_FORM=grid or =persistent pins the form instead (where both exist): for A/B
// studies, and for runs that must launch the same code on every machine.
constexpr int kMaxPersistent = 9;  // the widest filter the persistent kernel is compiled for
constexpr int kTimedLaunches = 5;  // of each form, at set-up

std::optional<Form> pinned_form() {
  const char* v = std::getenv("RUNNER_CONV2D_FORM");
  if (!v || !*v) return std::nullopt;
  const std::string_view s(v);
  if (s == "grid") return Form::grid;
  if (s == "persistent") return Form::persistent;
  throw PointInvalid("RUNNER_CONV2D_FORM is '" + std::string(s) +
                     "': grid or persistent (unset: the faster of the two, timed at set-up)");
}

// make(std::integral_constant<int, n mod 4>): the instances compiled per n mod 4.
template <class Make>
Forms by_n_mod4(std::int64_t n, Make make) {
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

// The forms of filter side KS for rows of n floats.
template <int KS>
Forms register_forms(std::int64_t n) {
  return by_n_mod4(n, [](auto r) {
    constexpr int kMod = decltype(r)::value;
    Forms f{sr::conv2d_shared_reg<KS, kRows, kMod>, nullptr, kMod};
    if constexpr (KS <= kMaxPersistent)
      f.persistent = sr::conv2d_shared_reg_persistent<KS, kRows, kMod>;
    return f;
  });
}
// The forms of filter side ks (odd, 1 to kMaxKernelSize: checked_kernel_size) on rows of n floats.
template <int KS = 1>
Forms forms_for(int ks, std::int64_t n) {
  if constexpr (KS > kMaxKernelSize) {
    throw PointInvalid("no shared_reg instance for kernel_size " + std::to_string(ks));
  } else {
    return ks == KS ? register_forms<KS>(n) : forms_for<KS + 2>(ks, n);
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

class SharedReg final : public CudaConv2dBase {
 public:
  SharedReg(const Point& point, std::shared_ptr<const Problem> problem)
      : SharedReg(point, std::move(problem), checked_kernel_size(point)) {}

  void run() override {
    note_launch(form_ == Form::persistent ? persistent_grid_ : grid_, block());
    launch(form_);
  }

  nlohmann::json extra_fields() const override {
    nlohmann::json fields = CudaConv2dBase::extra_fields();
    fields["path"] = path_of(form_);
    if (!choice_.empty()) fields["message"] = choice_;
    return fields;
  }

 private:
  SharedReg(const Point& point, std::shared_ptr<const Problem> problem, int ks)
      : SharedReg(point, std::move(problem), ks, forms_for(ks, point.size->n)) {}
  SharedReg(const Point& point, std::shared_ptr<const Problem> problem, int ks, Forms forms)
      : CudaConv2dBase(point, std::move(problem), reinterpret_cast<const void*>(forms.grid), kBlock,
                       sr::shared_bytes(ks, kRows, forms.n_mod4)),
        forms_(forms),
        grid_bytes_(sr::shared_bytes(ks, kRows, forms.n_mod4)) {
    grid_ = sr::grid_for(m(), n(), kRows, forms_.n_mod4);
    h2d_ms_ += time_on_stream([&] {
      RUNNER_CUDA_CHECK(cudaMemcpyToSymbolAsync(sr::c_weights_reg, p_.weights.data(),
                                                p_.weights.size() * sizeof(float), 0,
                                                cudaMemcpyHostToDevice, stream()));
    });
    const std::optional<Form> pinned = pinned_form();
    if (forms_.persistent && pinned != Form::grid && prepare_persistent()) {
      if (pinned) {
        form_ = *pinned;
      } else {
        const std::function<void()> candidates[] = {[this] { launch(Form::grid); },
                                                    [this] { launch(Form::persistent); }};
        const cuda::LaunchRanking ranking =
            cuda::fastest_launch(candidates, stream(), kTimedLaunches);
        form_ = ranking.fastest == 1 ? Form::persistent : Form::grid;
        choice_ = fmt_choice(ranking.median_ms[1], ranking.median_ms[0]);
      }
    }
  }

  // The persistent form's launch: two tile buffers' shared memory (false where the device cannot
  // give a block that much: the grid then runs), a grid of the blocks the GPU holds at once, and
  // the two tile counters.
  bool prepare_persistent() {
    const std::size_t bytes = 2 * grid_bytes_;  // the persistent kernel's pipeline
    const void* kernel = reinterpret_cast<const void*>(forms_.persistent);
    try {
      cuda::require_launchable(kBlock, bytes, kernel);
    } catch (const PointInvalid&) {
      return false;
    }
    persistent_bytes_ = bytes;
    persistent_grid_ = sr::persistent_grid(
        m(), n(), kRows, forms_.n_mod4,
        cuda::residency(kernel, static_cast<int>(kBlock.threads()), bytes).blocks);
    counters_ = cuda::DeviceBuffer<unsigned>(2);
    RUNNER_CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, 2 * sizeof(unsigned), stream()));
    return true;
  }

  static dim3 block() {
    return dim3(static_cast<unsigned>(kBlock.x), static_cast<unsigned>(kBlock.y));
  }

  void launch(Form form) {
    if (form == Form::persistent) {
      // Launches alternate between the two counters: each zeroes the other's for the next one.
      unsigned* counter = counters_.data() + launches_ % 2;
      unsigned* spare = counters_.data() + (launches_ + 1) % 2;
      ++launches_;
      forms_.persistent<<<persistent_grid_, block(), persistent_bytes_, stream()>>>(
          in_.data(), out_.data(), m(), n(), counter, spare);
    } else {
      forms_.grid<<<grid_, block(), grid_bytes_, stream()>>>(in_.data(), out_.data(), m(), n());
    }
    RUNNER_CUDA_CHECK_LAUNCH();
  }

  static std::string fmt_choice(double persistent_ms, double grid_ms) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "form timed at set-up (median of %d cold launches each): persistent %.4f ms, "
                  "grid of whole tiles %.4f ms",
                  kTimedLaunches, persistent_ms, grid_ms);
    return text;
  }

  Forms forms_;
  std::size_t grid_bytes_;
  std::size_t persistent_bytes_ = 0;
  dim3 grid_, persistent_grid_;
  Form form_ = Form::grid;
  std::string choice_;                     // how form_ was chosen, where it was timed
  cuda::DeviceBuffer<unsigned> counters_;  // the persistent kernel's tile counters
  std::uint64_t launches_ = 0;
};

}  // namespace

RUNNER_FACTORY(shared_reg, make_workload<SharedReg>);

}  // namespace runner::kernels::conv2d
