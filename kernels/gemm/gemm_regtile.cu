// Launch side of the `regtile` variant (FP32 SIMT GEMM with register tiles; the kernel template
// and its design are in gemm_regtile.cuh). The tilings are tuned and fixed (regtile::Regtile,
// 128×128, and two of 64×64 where C has few 128×128 tiles, the fastest timed at set-up): the
// variant has no block axis. Where C has too few tiles to fill the GPU (small or deep-K problems)
// k is split (gemm_split_k.cuh); where k or n is not a multiple of 8, A or B is copied to rows of
// whole 32-byte sectors (gemm_padded_operands.cuh) for the float4 loads, or read as it is (by the
// float4 instance where k and n are multiples of 4, else by the scalar-load one): the faster on
// this GPU and problem, timed at set-up with the tilings. The
// record's `path` and `k_splits` say which, its `message` what the timing measured.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernels/gemm/gemm_cuda_workload.hpp"
#include "kernels/gemm/gemm_padded_operands.cuh"
#include "kernels/gemm/gemm_regtile.cuh"
#include "kernels/gemm/gemm_split_k.cuh"
#include "kernels/gemm/gemm_timed_routes.cuh"
#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/cuda/residency.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/gpu_info.hpp"
#include "runner/api/pinned_choice.hpp"
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
//
// The 64×64 tilings (regtile::RegtileSmall, RegtileSmallPair) ran their k-steps 15 % slower than
// that rate scaled (H200, 1000³ to 2560³ with every slot busy: 0.41–0.45 µs a block-step, 4 blocks
// an SM, against 0.36 modelled): model_factor 1.15. A lone block of them took 0.50–0.57 of a full
// wave's k-step (513³, 640³), as Regtile's does.
template <class Tiles>
split_k::CostModel cost_model(const void* kernel, double model_factor) {
  const cuda::Residency resident = cuda::residency(kernel, Tiles::kThreads, 0);
  split_k::CostModel cost;
  cost.slots = resident.blocks;
  cost.step_us = 2.9 * model_factor *
                 (double{Tiles::BM} * Tiles::BN * Tiles::BK / (128.0 * 128 * 16)) *
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

using Kernel = void (*)(const float*, const float*, float*, std::int64_t, std::int64_t,
                        std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                        std::int64_t, std::int64_t, int);

// One tiling the variant can run a problem with: its kernel instances and what their launch and
// split-K plan need.
struct TileKernels {
  const char* name = "";  // in the record's path ("64x64 tiles, split-K 3") and the pin
  int bm = 0, bn = 0, bk = 0, threads = 0;
  Kernel instance[2][2] = {};  // [16-byte loads][16-byte stores]
  // The instances that add a tile's splits in a cluster (regtile::Tiling::kClusterSum), and the
  // most splits they add (a thread's tile rows); none for the 128×128 tiling.
  Kernel cluster_instance[2][2] = {};
  int most_cluster_splits = 0;
  split_k::CostModel (*cost_model)(const void* kernel, double model_factor) = nullptr;
  double model_factor = 1;

  split_k::CostModel cost(Kernel kernel) const {
    return cost_model(reinterpret_cast<const void*>(kernel), model_factor);
  }
};

template <class Tiles>
TileKernels tile_kernels(const char* name, double model_factor) {
  TileKernels t;
  t.name = name;
  t.model_factor = model_factor;
  t.bm = Tiles::BM, t.bn = Tiles::BN, t.bk = Tiles::BK, t.threads = Tiles::kThreads;
  t.instance[0][0] = regtile::regtile_kernel<Tiles, false, false>;
  t.instance[0][1] = regtile::regtile_kernel<Tiles, false, true>;
  t.instance[1][0] = regtile::regtile_kernel<Tiles, true, false>;
  t.instance[1][1] = regtile::regtile_kernel<Tiles, true, true>;
  t.cost_model = cost_model<Tiles>;
  if constexpr (Tiles::kClusterSum) {
    t.cluster_instance[0][0] = regtile::regtile_kernel<Tiles, false, false, true>;
    t.cluster_instance[0][1] = regtile::regtile_kernel<Tiles, false, true, true>;
    t.cluster_instance[1][0] = regtile::regtile_kernel<Tiles, true, false, true>;
    t.cluster_instance[1][1] = regtile::regtile_kernel<Tiles, true, true, true>;
    t.most_cluster_splits = Tiles::TM;  // each block of a cluster stores whole rows of it
  }
  return t;
}

// The tilings, largest first. The 64×64 ones are timed beside the 128×128 where C has fewer
// 128×128 tiles than two waves of the GPU's resident blocks (264 on an H100 or H200, up to about
// 2900²): there a C whose sides are not multiples of 128 leaves much of the last tile row and
// column empty, and few tiles fill the SMs only by splitting k. From two waves up the large
// tiles' edges are a few per cent of the work, and the small ones reuse each loaded value half as
// often (2560³ on an H200: 128×128 91 % of cuBLAS, the 64×64 ones 84–86 %).
const std::vector<TileKernels>& tilings() {
  static const std::vector<TileKernels> all{
      tile_kernels<regtile::Regtile>("128x128", 1.0),
      tile_kernels<regtile::RegtileSmall>("64x64", 1.15),
      tile_kernels<regtile::RegtileSmallPair>("64x64-2w", 1.15)};
  return all;
}
constexpr std::int64_t kSmallTileWaves = 2;

// Where k or n is not a multiple of 4 the copies and the scalar instance are timed at set-up
// (padded::Loads); where both are but one is not a multiple of 8, the float4 instance on the
// copies and on the operands as they are. On an H200 the scalar instance ran 3 to 9 points of
// cuBLAS ahead from 257³ to 511³, level near 513³ to 801³, 4 to 6 points behind from 1000³ up
// (docs/performance.md, Log).
constexpr const char* kPinLoads = "RUNNER_REGTILE_LOADS";
// RUNNER_REGTILE_TILES=128x128, 64x64 or 64x64-2w pins the tiling (checked at every size).
constexpr const char* kPinTiles = "RUNNER_REGTILE_TILES";

// Where a tiling's tiles are fewer than its resident blocks (one wave leaves slots idle) and the
// cost model splits k at most this many times, the splits 1 to this are timed beside the model's:
// the model's split runs at 96 % or more of the fastest forced split (above), and where C fills
// one wave or less those few per cent decide the target (1000³: 89.8–89.9 % of cuBLAS in the
// model's 2 splits on an H200). Where the model splits k more (deep K, 256³) none is timed.
constexpr int kTimedSplits = 4;
// RUNNER_REGTILE_SPLITS=modelled keeps the cost model's split everywhere (=timed: the default).
constexpr const char* kPinSplits = "RUNNER_REGTILE_SPLITS";

// Where a split's partial tiles are added: in the workspace, by a second kernel, or, on sm_90+
// with the 64×64 tilings (whose shared memory holds a partial tile), in a thread-block cluster of
// the tile's splits, through distributed shared memory: no workspace traffic and no second
// launch. Unpinned, the cluster sum is timed beside the workspace's for the splits that are
// timed (above); RUNNER_REGTILE_SUM=cluster adds every split in a cluster where it can (the
// model's too), =workspace never.
enum class Sum { timed, workspace, cluster };
constexpr const char* kPinSum = "RUNNER_REGTILE_SUM";

Sum pinned_sum() {
  const std::optional<std::size_t> pinned =
      pinned_choice(kPinSum, {"workspace", "cluster"}, "both timed where the splits are");
  if (!pinned) return Sum::timed;
  return *pinned == 0 ? Sum::workspace : Sum::cluster;
}

const TileKernels* pinned_tiling() {
  const std::vector<TileKernels>& all = tilings();
  std::vector<std::string_view> names;
  for (const TileKernels& t : all) names.push_back(t.name);
  const std::optional<std::size_t> pinned =
      pinned_choice(kPinTiles, names, "timed at set-up where C has few tiles");
  return pinned ? &all[*pinned] : nullptr;
}

class RegtileGemm final : public CudaGemm<float> {
 public:
  RegtileGemm(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaGemm<float>(require_grid<regtile::Regtile>(point), std::move(problem)),
        a_rows_(a_.data(), m(), k()),
        b_rows_(b_.data(), k(), n()) {
    // float4 loads need every row of A (k floats) and B (n floats) on a 16-byte boundary. Where k
    // or n is not a multiple of 8 (rows that are not whole 32-byte sectors) that operand is copied
    // to padded rows first, or read as it is: by the float4 instance where k and n are multiples
    // of 4, else by the scalar one; the faster timed at set-up (Loads). Without room for the
    // copies the operands are read as they are.
    const bool aligned = aligned16(a_.data()) && aligned16(b_.data()) && aligned16(c_.data());
    const bool misaligned = !a_rows_.vector_rows() || !b_rows_.vector_rows();
    const bool unsectored = a_rows_.needs_copy() || b_rows_.needs_copy();
    const std::optional<padded::Loads> pinned_loads = padded::pinned_loads(kPinLoads);
    const TileKernels* pinned_tiles = pinned_tiling();  // both checked at every size
    const bool copies = aligned && unsectored && pinned_loads != padded::Loads::scalar &&
                        padded::allocate_copies(a_rows_, b_rows_);
    time_splits_ =
        pinned_choice(kPinSplits, {"modelled", "timed"},
                      "timed where a tiling's tiles leave resident blocks idle") != std::size_t{0};
    sum_ = pinned_sum();

    std::vector<const TileKernels*> timed_tilings;
    if (pinned_tiles) {
      if (ceil_div(m(), pinned_tiles->bm) * ceil_div(n(), pinned_tiles->bn) > kMaxGridX)
        throw PointInvalid("size " + to_string(*point.size) + " needs more than 2^31-1 blocks of " +
                           pinned_tiles->name + " tiles");
      timed_tilings.push_back(pinned_tiles);
    } else {
      const TileKernels& large = tilings().front();
      const std::int64_t large_tiles = ceil_div(m(), large.bm) * ceil_div(n(), large.bn);
      const std::int64_t slots = large.cost(large.instance[1][1]).slots;
      for (const TileKernels& t : tilings())
        if (&t == &large || (large_tiles < kSmallTileWaves * slots &&
                             ceil_div(m(), t.bm) * ceil_div(n(), t.bn) <= kMaxGridX))
          timed_tilings.push_back(&t);
    }
    const bool vec_loads = aligned && (copies || !misaligned);
    // Beside the copies, the operands as they are: not where that is the scalar instance and the
    // float4 one is pinned.
    const bool time_as_is = copies && !(misaligned && pinned_loads == padded::Loads::vector);
    route_ = fastest_route_of_tilings<Route>(
        timed_tilings, time_as_is,
        [&](const TileKernels* t, bool widest, std::vector<Route>& routes) {
          if (widest)
            add_routes(*t, vec_loads, copies, routes);
          else
            add_routes(*t, !misaligned, false, routes);
        },
        a_rows_, b_rows_, stream(), point.measure, [this](const Route& r) { launch(r); },
        [this](const Route& r) { return describe(r); }, choice_);
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
  // One way to run the problem: the tiling and its kernel instance, whether A and B are read from
  // their padded copies, and the split of k planned for that instance.
  struct Route {
    const TileKernels* tiling = nullptr;
    Kernel kernel = nullptr;
    std::int64_t tiles_m = 0, tiles_n = 0;
    bool copies = false;
    std::optional<split_k::SplitK<float>> split;  // in_cluster: its splits summed in a cluster
  };

  // The routes of a tiling and load: the cost model's split of k, and where the tiling's tiles
  // are fewer than its resident blocks and the model splits k at most kTimedSplits times, every
  // other split up to kTimedSplits.
  void add_routes(const TileKernels& t, bool vec_loads, bool copies, std::vector<Route>& routes) {
    const Kernel planned = t.instance[vec_loads][vec_loads];
    const split_k::CostModel cost = t.cost(planned);
    const std::int64_t tiles = ceil_div(m(), t.bm) * ceil_div(n(), t.bn);
    const split_k::Plan modelled = split_k::plan(cost, tiles, m(), n(), k(), t.bk, sizeof(float));
    const bool timed = time_splits_ && tiles < cost.slots && modelled.splits <= kTimedSplits;
    // A split's route(s): summed in the workspace, in a cluster (Sum), or each, timed.
    const auto add = [&](const split_k::Plan& plan) {
      const bool cluster =
          sum_ != Sum::workspace && (timed || sum_ == Sum::cluster) &&
          sums_in_cluster(t, t.cluster_instance[vec_loads][vec_loads], tiles, plan.splits);
      if (!cluster || sum_ == Sum::timed) routes.push_back(make_route(t, vec_loads, copies, plan));
      if (cluster) routes.push_back(make_route(t, vec_loads, copies, plan, true));
    };
    add(modelled);
    if (!timed) return;
    for (int splits = 1; splits <= kTimedSplits; ++splits) {
      if (splits == modelled.splits) continue;
      if (const std::optional<split_k::Plan> plan =
              split_k::plan_of_splits(cost, tiles, m(), n(), k(), t.bk, sizeof(float), splits))
        add(*plan);
    }
  }

  // Whether `splits` partial tiles of this tiling can be added in a cluster here: more than one
  // and at most its thread tile's rows, an sm_90+ image of the kernel (the cluster code is
  // compiled for sm_90+ only) and a GPU that places clusters of that many of its blocks.
  static bool sums_in_cluster(const TileKernels& t, Kernel kernel, std::int64_t tiles, int splits) {
    if (splits < 2 || splits > t.most_cluster_splits || kernel == nullptr) return false;
    cudaFuncAttributes attr{};
    RUNNER_CUDA_CHECK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel)));
    if (attr.binaryVersion < 90 || (attr.ptxVersion > 0 && attr.ptxVersion < 90)) return false;
    cudaLaunchAttribute cluster = split_k::cluster_of(splits);
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(splits));
    config.blockDim = dim3(static_cast<unsigned>(t.threads));
    config.attrs = &cluster;
    config.numAttrs = 1;
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess) {
      (void)cudaGetLastError();  // not an error of the point: the workspace sums instead
      return false;
    }
    return clusters > 0;
  }

  // float4 loads (on A and B as they are, or on their copies) or scalar ones; float4 stores where
  // the rows the kernel writes start on 16-byte boundaries: C's where n % 4 == 0, the split-K
  // workspace's always (gemm_split_k.cuh, SplitK). `plan`: the split of k, added in a cluster
  // (in_cluster) or in the workspace (allocated here; without room for it k stays whole).
  Route make_route(const TileKernels& t, bool vec_loads, bool copies, const split_k::Plan& plan,
                   bool in_cluster = false) {
    Route route;
    route.tiling = &t;
    route.copies = copies;
    route.tiles_m = ceil_div(m(), t.bm);
    route.tiles_n = ceil_div(n(), t.bn);
    route.split.emplace(plan, route.tiles_m * route.tiles_n, m(), n(), k(), in_cluster,
                        padded::padded_row<float>(n()));
    const bool vec_stores =
        aligned16(route.split->output(c_.data())) && route.split->output_ld() % 4 == 0;
    route.kernel = in_cluster && route.split->cluster_splits() > 1
                       ? t.cluster_instance[vec_loads][vec_stores]
                       : t.instance[vec_loads][vec_stores];
    cuda::require_launchable(BlockShape{t.threads, 1}, 0,
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
    const dim3 block(static_cast<unsigned>(route.tiling->threads));
    note_launch(split.grid(), block);
    float* const out = split.output(c_.data());
    const std::int64_t ldc = split.output_ld();
    const std::int64_t k_chunk = split.plan().k_chunk;
    const int cluster_splits = split.cluster_splits();
    if (cluster_splits > 1) {  // the splits of a tile summed in its cluster (no reduction)
      cudaLaunchAttribute cluster = split_k::cluster_of(cluster_splits);
      cudaLaunchConfig_t config{};
      config.gridDim = split.grid();
      config.blockDim = block;
      config.stream = stream();
      config.attrs = &cluster;
      config.numAttrs = 1;
      RUNNER_CUDA_CHECK(cudaLaunchKernelEx(&config, route.kernel, a, b, out, m(), n(), k(), lda,
                                           ldb, ldc, route.tiles_m, route.tiles_n, k_chunk,
                                           cluster_splits));
      RUNNER_CUDA_CHECK_LAUNCH();
    } else if (route.copies) {  // the GEMM's launch overlaps the copy's end (dependent_launch.cuh)
      launch_dependent(route.kernel, split.grid(), block, 0, stream(), a, b, out, m(), n(), k(),
                       lda, ldb, ldc, route.tiles_m, route.tiles_n, k_chunk, 0);
    } else {
      route.kernel<<<split.grid(), block, 0, stream()>>>(a, b, out, m(), n(), k(), lda, ldb, ldc,
                                                         route.tiles_m, route.tiles_n, k_chunk, 0);
      RUNNER_CUDA_CHECK_LAUNCH();
    }
    split.reduce_into(c_.data(), sms, stream());
  }

  std::string describe(const Route& route) const {
    std::string path = split_k::describe(route.tiling->name, route.split->plan(),
                                         route.split->cluster_splits() > 1) +
                       padded::describe_copies(a_rows_, b_rows_, route.copies);
    if (!route.copies && (!a_rows_.vector_rows() || !b_rows_.vector_rows()))
      path += ", scalar loads";
    return path;
  }

  padded::PaddedOperand<float> a_rows_, b_rows_;  // A (m×k) and B (k×n) as the kernel reads them
  bool time_splits_ = true;                       // RUNNER_REGTILE_SPLITS unset or =timed
  Sum sum_ = Sum::timed;                          // RUNNER_REGTILE_SUM
  Route route_;                                   // what runs
  std::string choice_;                            // how the route was chosen, where timed
};

}  // namespace

RUNNER_FACTORY(regtile, make_workload<RegtileGemm>);

}  // namespace runner::kernels::gemm
