// conv2d shared_reg: the shared-memory tile of `shared` plus register blocking. A block of 32 × 8
// threads computes a 128-column × 32-row output tile; each thread a 4 × 4 patch (4 rows of 4
// adjacent columns) kept in accumulators, so every value it reads from shared memory serves up
// to 16 of its outputs. Filter in constant memory. Narrow images (a side of a few tens of
// pixels) get tiles of their own shape, the same kernel with 8 × 32 threads (32 columns × 128
// rows) or 64 × 4 (256 columns × 16 rows): below, "Tile shapes".
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
// Tile shapes. A 32-column image in 128-column tiles computes four times its pixels, a 16-row
// image in 32-row tiles twice (on an H200 at ks = 7, 32768 × 32 ran at 42 % of the copy and
// 16 × 65536 at 64 %). Up to ks = 9, each narrow shape that computes at most 90 % of the pixels
// the 128 × 32 tiles would is timed at set-up beside them, both forms each
// (conv2d_shared_reg_tiles.hpp holds the shapes and that rule, unit-tested without a GPU); the
// path names the shape that runs ("registers, 32-column tiles", "registers, 16-row tiles").
// Narrow tiles carry more halo a pixel (a 32-column tile at ks = 7 reads 48 columns for 32), so
// on the images they do not shorten they would only lose. (Tiles of 16 columns × 256 rows, 4 × 64
// threads, were measured beside them on an H200 and lost everywhere, by 8 to 16 points of the
// copy even at 65536 × 48, where they compute a quarter less than the 32-column tiles:
// docs/performance.md, Log.)
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
#include <vector>

#include "kernels/conv2d/conv2d_cuda_workload.hpp"
#include "kernels/conv2d/conv2d_problem.hpp"
#include "kernels/conv2d/conv2d_shared_reg.cuh"
#include "runner/api/cuda/cuda_workload.hpp"
#include "runner/api/cuda/fastest_launch.hpp"
#include "runner/api/cuda/residency.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/pinned_choice.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::conv2d {
namespace {

namespace sr = shared_reg;
static_assert(sr::kMaxFilter == kMaxKernelSize);

using GridKernel = void (*)(const float*, float*, int, int);
using PersistentKernel = void (*)(const float*, float*, int, int, unsigned*, unsigned*);

using sr::kFlatTiles;
using sr::kMaxNarrow;
using sr::kRows;
using sr::kTallTiles;
using sr::kWideTiles;
using sr::TileShape;

// The two forms of one problem's kernel in one tile shape, compiled for the n mod 4 of its rows:
// on a grid of whole tiles (`grid`), and persistent (`persistent`; null where ks >
// kMaxPersistent).
struct Forms {
  GridKernel grid = nullptr;
  PersistentKernel persistent = nullptr;
  int n_mod4 = 0;
};
enum class Form { grid, persistent };

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
// costs resident blocks (4 an SM against the grid's 5 in that run): it ran 2 to 8 % slower than
// the grid at ks = 11 to 15 on 2048² to 16384² on the H200, so it is not compiled beyond ks = 9.
// Each narrow shape that competes (sr::kNarrowShare) is timed beside them, both its forms.
// RUNNER_CONV2D_FORM=grid or =persistent pins the form, RUNNER_CONV2D_TILES=128x32, 32x128 or
// 256x16 the tile shape, where they exist (elsewhere the grid, the 128 × 32 tiles): for A/B
// studies, and for runs that must launch the same code on every machine.
constexpr int kMaxPersistent = 9;  // the widest filter the persistent kernel is compiled for

std::optional<Form> pinned_form() {
  const std::optional<std::size_t> pinned = pinned_choice(
      "RUNNER_CONV2D_FORM", {"grid", "persistent"}, "the faster of the two, timed at set-up");
  if (!pinned) return std::nullopt;
  return *pinned == 0 ? Form::grid : Form::persistent;
}

std::optional<TileShape> pinned_shape() {
  std::vector<std::string_view> names;
  for (const TileShape& shape : sr::kAllShapes) names.push_back(shape.name);
  const std::optional<std::size_t> pinned =
      pinned_choice("RUNNER_CONV2D_TILES", names, "chosen by the image's shape, timed at set-up");
  if (!pinned) return std::nullopt;
  return sr::kAllShapes[*pinned];
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

// The forms of tile shape BX and filter side KS for rows of n floats.
template <int BX, int KS>
Forms register_forms(std::int64_t n) {
  return by_n_mod4(n, [](auto r) {
    constexpr int kMod = decltype(r)::value;
    Forms f{sr::conv2d_shared_reg<BX, KS, kRows, kMod>, nullptr, kMod};
    if constexpr (KS <= kMaxPersistent)
      f.persistent = sr::conv2d_shared_reg_persistent<BX, KS, kRows, kMod>;
    return f;
  });
}
// The forms of tile shape BX and filter side ks (odd, 1 to kMaxKernelSize: checked_kernel_size;
// to kMaxNarrow for the narrow shapes: narrow_shapes) on rows of n floats.
template <int BX, int KS = 1>
Forms forms_for(int ks, std::int64_t n) {
  constexpr int kMax = BX == kWideTiles.bx ? kMaxKernelSize : kMaxNarrow;
  if constexpr (KS > kMax) {
    throw PointInvalid("no shared_reg instance for kernel_size " + std::to_string(ks));
  } else {
    return ks == KS ? register_forms<BX, KS>(n) : forms_for<BX, KS + 2>(ks, n);
  }
}
Forms forms_for(const TileShape& shape, int ks, std::int64_t n) {
  switch (shape.bx) {
    case kTallTiles.bx:
      return forms_for<kTallTiles.bx>(ks, n);
    case kFlatTiles.bx:
      return forms_for<kFlatTiles.bx>(ks, n);
    default:
      return forms_for<kWideTiles.bx>(ks, n);
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

// The tile shapes that run on an image: the pinned one (where it exists for ks), else the 128 ×
// 32 tiles and the narrow shapes that compete with them. The first is the one the base class
// checks.
std::vector<TileShape> shapes_for(int ks, std::int64_t m, std::int64_t n) {
  if (const std::optional<TileShape> pinned = pinned_shape())
    return {pinned->bx == kWideTiles.bx || ks <= kMaxNarrow ? *pinned : kWideTiles};
  std::vector<TileShape> shapes{kWideTiles};
  for (const TileShape& narrow : sr::narrow_shapes(ks, m, n)) shapes.push_back(narrow);
  return shapes;
}

BlockShape block_of(const TileShape& shape) {
  return BlockShape{shape.bx, sr::block_y(shape.bx)};
}

class SharedReg final : public CudaConv2dBase {
 public:
  SharedReg(const Point& point, std::shared_ptr<const Problem> problem)
      : SharedReg(point, std::move(problem), checked_kernel_size(point)) {}

  void run() override {
    const Candidate& c = chosen();
    note_launch(c.form == Form::persistent ? c.tiles->persistent_grid : c.tiles->grid,
                dim3_of(block_of(c.tiles->shape)));
    launch(c);
  }

  nlohmann::json extra_fields() const override {
    nlohmann::json fields = CudaConv2dBase::extra_fields();
    fields["path"] = path_of(chosen());
    if (!choice_.empty()) fields["message"] = choice_;
    return fields;
  }

 private:
  // One tile shape's kernels and launches on this image.
  struct ShapeLaunches {
    TileShape shape;
    Forms forms;
    std::size_t grid_bytes = 0, persistent_bytes = 0;
    dim3 grid, persistent_grid;
  };
  struct Candidate {
    const ShapeLaunches* tiles;
    Form form;
  };

  SharedReg(const Point& point, std::shared_ptr<const Problem> problem, int ks)
      : SharedReg(point, std::move(problem), ks, shapes_for(ks, point.size->m, point.size->n)) {}
  SharedReg(const Point& point, std::shared_ptr<const Problem> problem, int ks,
            const std::vector<TileShape>& shapes)
      : SharedReg(point, std::move(problem), ks, shapes,
                  forms_for(shapes.front(), ks, point.size->n)) {}
  SharedReg(const Point& point, std::shared_ptr<const Problem> problem, int ks,
            const std::vector<TileShape>& shapes, Forms first)
      : CudaConv2dBase(point, std::move(problem), reinterpret_cast<const void*>(first.grid),
                       block_of(shapes.front()),
                       sr::shared_bytes(shapes.front().bx, ks, kRows, first.n_mod4)) {
    h2d_ms_ += time_on_stream([&] {
      RUNNER_CUDA_CHECK(cudaMemcpyToSymbolAsync(sr::c_weights_reg, p_.weights.data(),
                                                p_.weights.size() * sizeof(float), 0,
                                                cudaMemcpyHostToDevice, stream()));
    });
    for (const TileShape& shape : shapes) {
      ShapeLaunches tiles{shape, forms_for(shape, ks, n())};
      tiles.grid_bytes = sr::shared_bytes(shape.bx, ks, kRows, tiles.forms.n_mod4);
      if (shape.bx != shapes.front().bx && !launchable(shape, tiles.grid_bytes, tiles.forms.grid))
        continue;  // a narrow shape the device cannot give its shared memory: the others run
      tiles.grid = sr::grid_for(shape.bx, m(), n(), kRows, tiles.forms.n_mod4);
      shapes_.push_back(tiles);
    }
    const std::optional<Form> pinned = pinned_form();
    std::vector<Candidate> candidates;  // what may run; more than one are timed here
    for (ShapeLaunches& tiles : shapes_) {
      const bool persistent =
          tiles.forms.persistent && pinned != Form::grid && prepare_persistent(tiles);
      if (!pinned || !persistent) candidates.push_back({&tiles, Form::grid});
      if (persistent) candidates.push_back({&tiles, Form::persistent});
    }
    chosen_ = cuda::fastest_candidate(
        std::move(candidates), "tiles and form", stream(), point.measure,
        [this](const Candidate& c) { launch(c); }, path_of, choice_);
  }

  static bool launchable(const TileShape& shape, std::size_t bytes, const void* kernel) {
    try {
      cuda::require_launchable(block_of(shape), bytes, kernel);
      return true;
    } catch (const PointInvalid&) {
      return false;
    }
  }
  template <class Kernel>
  static bool launchable(const TileShape& shape, std::size_t bytes, Kernel kernel) {
    return launchable(shape, bytes, reinterpret_cast<const void*>(kernel));
  }

  // The persistent form's launch: two tile buffers' shared memory (false where the device cannot
  // give a block that much: the grid then runs), a grid of the blocks the GPU holds at once, and
  // the two tile counters.
  bool prepare_persistent(ShapeLaunches& tiles) {
    const std::size_t bytes = 2 * tiles.grid_bytes;  // the persistent kernel's pipeline
    if (!launchable(tiles.shape, bytes, tiles.forms.persistent)) return false;
    const void* kernel = reinterpret_cast<const void*>(tiles.forms.persistent);
    tiles.persistent_bytes = bytes;
    tiles.persistent_grid =
        sr::persistent_grid(tiles.shape.bx, m(), n(), kRows, tiles.forms.n_mod4,
                            cuda::residency(kernel, sr::kThreads, bytes).blocks);
    if (counters_.size() == 0) {
      counters_ = cuda::DeviceBuffer<unsigned>(2);
      RUNNER_CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, 2 * sizeof(unsigned), stream()));
    }
    return true;
  }

  static dim3 dim3_of(const BlockShape& block) {
    return dim3(static_cast<unsigned>(block.x), static_cast<unsigned>(block.y));
  }

  void launch(const Candidate& c) {
    const ShapeLaunches& t = *c.tiles;
    const dim3 block = dim3_of(block_of(t.shape));
    if (c.form == Form::persistent) {
      // Launches alternate between the two counters: each zeroes the other's for the next one.
      unsigned* counter = counters_.data() + launches_ % 2;
      unsigned* spare = counters_.data() + (launches_ + 1) % 2;
      ++launches_;
      t.forms.persistent<<<t.persistent_grid, block, t.persistent_bytes, stream()>>>(
          in_.data(), out_.data(), m(), n(), counter, spare);
    } else {
      t.forms.grid<<<t.grid, block, t.grid_bytes, stream()>>>(in_.data(), out_.data(), m(), n());
    }
    RUNNER_CUDA_CHECK_LAUNCH();
  }

  static std::string path_of(const Candidate& c) {
    return std::string(c.tiles->shape.path) + (c.form == Form::persistent ? ", persistent" : "");
  }
  const Candidate& chosen() const { return chosen_; }

  std::vector<ShapeLaunches> shapes_;      // filled before chosen_, which points into it
  Candidate chosen_{};                     // the tiles and form that run
  std::string choice_;                     // how the candidate was chosen, where it was timed
  cuda::DeviceBuffer<unsigned> counters_;  // the persistent kernel's tile counters
  std::uint64_t launches_ = 0;
};

}  // namespace

RUNNER_FACTORY(shared_reg, make_workload<SharedReg>);

}  // namespace runner::kernels::conv2d
