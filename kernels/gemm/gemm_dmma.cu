// Launch side of the `dmma` variant (FP64 GEMM on the tensor cores, mma.sync m16n8k8 on sm_90+,
// m8n8k4 on sm_80..89; the kernel and its design are in gemm_dmma.cuh). The tiles are tuned and
// chosen per problem, not by an axis: 128×128 (dmma::LargeSmemConfig where the device has the
// shared memory for it, else dmma::DefaultConfig), or 64×64 (dmma::SmallTileConfig): where C has
// few 128×128 tiles both are timed at set-up, elsewhere the split-K cost model chooses.
// FP64 mma needs compute capability 8.0: on an older device the point is recorded skipped.
// Where C has too few tiles to fill the GPU (small or deep-K problems) k is split
// (gemm_split_k.cuh); where k or n is not a multiple of 4, A or B is copied to rows of whole
// 32-byte sectors (gemm_padded_operands.cuh) or read as it is (by the 16-byte instance where k and
// n are even, else by the 8-byte one), the faster timed at set-up.
// The record's `path`, `k_splits` and `vector_copies` say how, its `message` what was timed.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/gemm/gemm_cuda_workload.hpp"
#include "kernels/gemm/gemm_dmma.cuh"
#include "kernels/gemm/gemm_padded_operands.cuh"
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

// Where k or n is odd the vector instance on padded copies of A and B and the 8-byte instance on
// the operands as they are are timed at set-up (padded::Loads); where both are even but one is not
// a multiple of 4, the vector instance on the copies and on the operands as they are. The rule this
// replaced (copy where the modelled copy costs less than 23 % of the 8-byte instance's modelled
// time, fitted on an H200) copied from about 1500³ up; the copies lost below that (1023³ 76.5
// against 81.0 % of cuBLAS, 511³ 68.7 / 76.4) and won above (1501³ 87.1 / 83.1, 4095 × 4097 × 4099
// 108 %).
constexpr const char* kPinLoads = "RUNNER_DMMA_LOADS";

// Which tiling a route runs: one of the two, or the one the split-K cost model finds faster.
enum class TilingChoice { large, small, modelled };

// RUNNER_DMMA_TILES=128x128 or 64x64 pins the tiling (checked at every size).
std::optional<TilingChoice> pinned_tiling() {
  const std::optional<std::size_t> pinned = pinned_choice("RUNNER_DMMA_TILES", {"128x128", "64x64"},
                                                          "timed at set-up where C has few tiles");
  if (!pinned) return std::nullopt;
  return *pinned == 0 ? TilingChoice::large : TilingChoice::small;
}

// Checked before any device memory is allocated.
const Point& require_dmma(const Point& point) {
  if (point.dtype && *point.dtype != Dtype::f64)
    throw PointInvalid("dmma requires dtype double (it is an FP64 tensor-core kernel)");
  const GpuInfo& gpu = gpu_info();
  if (gpu.present && gpu.compute_major < 8)
    throw PointSkipped("dmma needs FP64 tensor cores (compute capability 8.0 or later); " +
                       gpu.name + " is " + std::to_string(gpu.compute_major) + "." +
                       std::to_string(gpu.compute_minor));
  const ProblemSize& s = *point.size;
  const int bm = dmma::DefaultConfig::kBM, bn = dmma::DefaultConfig::kBN;
  if (ceil_div(s.m, bm) * ceil_div(s.n, bn) > kMaxGridX)
    throw PointInvalid("size " + to_string(s) + " needs more than 2^31-1 blocks of " +
                       std::to_string(bm) + "x" + std::to_string(bn));
  return point;
}

using DmmaKernel = void (*)(const double*, const double*, double*, std::int64_t, std::int64_t,
                            std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                            std::int64_t, std::int64_t, int);

// One tiling the variant can run a problem with: a Config's kernel and what its launch needs.
struct Tiling {
  int bm = 0, bn = 0, threads = 0, k_step = 0;
  int cluster_most = 0;  // the most splits its kernel adds in a cluster (Config::kMI)
  std::size_t shared_bytes = 0, cluster_sum_bytes = 0;
  DmmaKernel kernel = nullptr;
  // Its modelled time over its own time a k-step of the cost model (below) predicts: the larger
  // tiles' figures were measured, a smaller tile reuses each loaded fragment fewer times.
  double model_factor = 1.0;
};

// Cfg's kernel, or LargeCfg's (the same tiles with a deeper k-step) where the device gives a block
// the shared memory for it.
template <class Cfg, class LargeCfg>
Tiling tiling_of(bool vec, int smem_optin, double model_factor) {
  static_assert(Cfg::kBM == LargeCfg::kBM && Cfg::kBN == LargeCfg::kBN &&
                    Cfg::kThreads == LargeCfg::kThreads && Cfg::kMI == LargeCfg::kMI,
                "the two configs share the grid and the block");
  Tiling t;
  t.bm = Cfg::kBM;
  t.bn = Cfg::kBN;
  t.threads = Cfg::kThreads;
  t.cluster_most = Cfg::kMI;
  t.model_factor = model_factor;
  if (static_cast<std::size_t>(smem_optin) >= LargeCfg::kSharedBytes) {
    t.shared_bytes = LargeCfg::kSharedBytes;
    t.cluster_sum_bytes = LargeCfg::kClusterSumBytes;
    t.k_step = LargeCfg::kBK;
    t.kernel = vec ? dmma::dmma_kernel<LargeCfg, true> : dmma::dmma_kernel<LargeCfg, false>;
  } else {
    t.shared_bytes = Cfg::kSharedBytes;
    t.cluster_sum_bytes = Cfg::kClusterSumBytes;
    t.k_step = Cfg::kBK;
    t.kernel = vec ? dmma::dmma_kernel<Cfg, true> : dmma::dmma_kernel<Cfg, false>;
  }
  return t;
}

// A tiling applied to one problem: its grid of tiles and its split of k.
struct TiledProblem {
  Tiling tiling;
  std::int64_t tiles_m = 0, tiles_n = 0;
  split_k::Plan plan;
  bool in_cluster = false;
};

cudaLaunchConfig_t launch_config(const Tiling& t, dim3 grid, cudaLaunchAttribute* cluster,
                                 cudaStream_t stream) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(static_cast<unsigned>(t.threads));
  config.dynamicSmemBytes = t.shared_bytes;
  config.stream = stream;
  config.attrs = cluster;
  config.numAttrs = 1;
  return config;
}

// Whether the kernel can add a tile's splits in a thread-block cluster at all (SplitK): an sm_90
// kernel image (the cluster code is compiled for sm_90+ only) and stages large enough to hold
// every thread's accumulators; then up to kMI splits (the blocks share the tile's kMI rows of
// fragments; more splits go to the workspace, whose reduction spreads over every SM).
bool sums_in_clusters(const Tiling& t, const cudaFuncAttributes& attr) {
  return t.shared_bytes >= t.cluster_sum_bytes && attr.binaryVersion >= 90 &&
         (attr.ptxVersion == 0 || attr.ptxVersion >= 90);
}

// Blocks resident at once when launched in clusters of `splits` (0 where the GPU cannot place
// one: a cluster needs `splits` SMs of one GPC with the shared memory free).
std::int64_t cluster_slots(const Tiling& t, std::int64_t tiles, int splits) {
  cudaLaunchAttribute cluster = split_k::cluster_of(splits);
  const cudaLaunchConfig_t config = launch_config(
      t, dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(splits)), &cluster, nullptr);
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, t.kernel, &config) != cudaSuccess) {
    (void)cudaGetLastError();  // not an error of the point: the workspace sum runs instead
    return 0;
  }
  return std::int64_t{clusters} * splits;
}

// The split-K cost model's figures for a tiling: a 128×128×32 k-step takes 3.2 µs with one block
// an SM (42.3 TFLOP/s over 132 blocks at 4096³ on the H100; a k-step of 16 half that); the
// workspace moves at about 3 TB/s (it mostly stays in the L2).
split_k::CostModel cost_model(const Tiling& t, std::int64_t tiles, const cudaFuncAttributes& attr) {
  const cuda::Residency resident =
      cuda::residency(reinterpret_cast<const void*>(t.kernel), t.threads, t.shared_bytes);
  split_k::CostModel cost;
  cost.slots = resident.blocks;
  cost.sms = gpu_info().sm_count;
  // Scaled by the tile's work and by the blocks sharing an SM, for other tilings.
  cost.step_us =
      3.2 * t.model_factor * (t.bm * t.bn * t.k_step / (128.0 * 128 * 32)) * resident.per_sm;
  cost.bytes_per_us = 3.0e6;
  // Up to kMI splits are added in a cluster, whose exchange of partial tiles costs about one
  // k-step (FP64 1024³, 2 splits: 59.5 % of cuBLAS with the workspace, 67.8 % in the cluster,
  // on an H200). Clusters of 3 or 4 one-block-an-SM blocks do not pack every GPC (an H200
  // places 117 and 120 such blocks, not 132): the plan counts the waves with the clusters the
  // GPU can place (1100³ in 3 splits ran at 45.6 % of cuBLAS, three waves where a model of 132
  // slots predicted two, against 52.3 % with k whole).
  if (sums_in_clusters(t, attr)) {
    cost.cluster_slots.assign(static_cast<std::size_t>(t.cluster_most) + 1, 0);
    for (int s = 2; s <= t.cluster_most; ++s)
      cost.cluster_slots[static_cast<std::size_t>(s)] = cluster_slots(t, tiles, s);
  }
  return cost;
}

// The problem's grid in tiles of `t`, and the cost model for that grid (its occupancy and cluster
// queries made once for every split of k planned on it).
struct TileGridCost {
  Tiling tiling;
  std::int64_t tiles_m = 0, tiles_n = 0;
  split_k::CostModel cost;
};
TileGridCost tile_grid_cost(const Tiling& t, std::int64_t m, std::int64_t n,
                            const cudaFuncAttributes& attr) {
  TileGridCost g{t, ceil_div(m, t.bm), ceil_div(n, t.bn), {}};
  g.cost = cost_model(t, g.tiles_m * g.tiles_n, attr);
  return g;
}

// The problem on that grid with the cost model's split of k (splits 0) or with `splits` (nullopt
// where that many do not make chunks of their own: split_k::plan_of_splits).
std::optional<TiledProblem> tile_problem(const TileGridCost& g, std::int64_t m, std::int64_t n,
                                         std::int64_t k, int splits = 0) {
  TiledProblem p;
  p.tiling = g.tiling;
  p.tiles_m = g.tiles_m;
  p.tiles_n = g.tiles_n;
  const std::int64_t tiles = p.tiles_m * p.tiles_n;
  const int bk = g.tiling.k_step;
  if (splits == 0) {
    p.plan = split_k::plan(g.cost, tiles, m, n, k, bk, sizeof(double));
  } else if (const std::optional<split_k::Plan> plan =
                 split_k::plan_of_splits(g.cost, tiles, m, n, k, bk, sizeof(double), splits)) {
    p.plan = *plan;
  } else {
    return std::nullopt;
  }
  p.in_cluster = g.cost.sums_in_cluster(p.plan.splits);
  return p;
}

// Where the 64×64 tiles (two blocks an SM) are at most kTimedSplitTilesPerSm times the SMs, their
// splits of k from 1 to this are timed beside the model's. There a block runs alone on its SM or
// with one other, which the model's scaling of a k-step by the blocks sharing an SM does not
// capture: on an H200, 513³ (81 tiles) ran at 72.2 % of cuBLAS with k whole as modelled and 82.8 %
// in 2 splits, 256³ (16 tiles) at 68.4 % in 2 as modelled and 78.8 % in 4, while 640³ (100 tiles)
// ran fastest whole as modelled (94.3 % against 88.1 % in 2). Above 4 splits every one of 11 such
// problems lost. Where the model itself splits k more than 4 times (deep K: 256 × 256 × 65536 in
// 32) none is timed: a chunk of k whole, or of a quarter, would cost set-up in proportion to k and
// not win.
constexpr int kTimedSplits = 4;
// Up to two tiles an SM: 800 × 800 × 3000 (169 tiles on 132 SMs) ran at 83.5 % of cuBLAS in the
// model's 2 splits (338 blocks, 1.3 waves of two an SM) and at 87.2–89.9 % in 3 (507 blocks, 1.9
// waves), timed (H200, two runs).
constexpr std::int64_t kTimedSplitTilesPerSm = 2;
// RUNNER_DMMA_SPLITS=modelled keeps the cost model's split everywhere (=timed: the default).
constexpr const char* kPinSplits = "RUNNER_DMMA_SPLITS";

// The 64×64 tiles' time against the model's: a k-step of theirs does a quarter of the work of a
// 128×128 one, but each fragment loaded from shared memory feeds half as many mmas, and only two
// blocks of 202 registers a thread share an SM. Fitted on an H200 (37 problems from 256³ to
// 8192 × 8192 × 256 and deep K, each tiling forced in turn) with the earlier 64×64 tiles (three
// stages of 32): with 1.1 the model picked, at every problem, the tiling whose time was the
// shorter or within 3 % of it; 1.05 put 64×64 on deep K (512 × 512 × 16384: 17 % slower), 1.15
// kept 128×128 at 1024³ (10 % slower). Since then the model chooses only where C has two waves
// of 128×128 tiles or more (few_large_tiles), and the split of each tiling everywhere.
constexpr double kSmallTileModelFactor = 1.1;

class DmmaGemm final : public CudaGemm<double> {
 public:
  DmmaGemm(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaGemm<double>(require_dmma(point), std::move(problem)),
        a_rows_(a_.data(), m(), k()),
        b_rows_(b_.data(), k(), n()) {
    require_mma_image();
    // 16-byte copies need A's and B's rows on 16-byte boundaries (k and n even) and 16-byte
    // aligned matrices. Where k or n is not a multiple of 4 (rows that are not whole 32-byte
    // sectors) that operand is copied to padded rows first, or read as it is: by the 16-byte
    // instance where k and n are even, else by the 8-byte one; the faster timed at set-up
    // (padded::Loads). Without room for the copies the operands are read as they are.
    const auto aligned = [](const void* p) {
      return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
    };
    const bool aligned_all = aligned(a_.data()) && aligned(b_.data()) && aligned(c_.data());
    const bool misaligned = !a_rows_.vector_rows() || !b_rows_.vector_rows();
    const bool unsectored = a_rows_.needs_copy() || b_rows_.needs_copy();
    const std::optional<padded::Loads> pinned = padded::pinned_loads(kPinLoads);  // at any size
    const bool copies = aligned_all && unsectored && pinned != padded::Loads::scalar &&
                        padded::allocate_copies(a_rows_, b_rows_);
    int device = 0;
    RUNNER_CUDA_CHECK(cudaGetDevice(&device));
    RUNNER_CUDA_CHECK(
        cudaDeviceGetAttribute(&smem_optin_, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    // Above 48 KiB of dynamic shared memory: require_launchable raises each instance's limit, once
    // a point and before the occupancy queries (few_large_tiles, the cost model) read it.
    for (const bool vec : {true, false})
      for (const Tiling& t : {large_tiling(vec), small_tiling(vec)})
        cuda::require_launchable(BlockShape{t.threads, 1}, t.shared_bytes,
                                 reinterpret_cast<const void*>(t.kernel));
    // The tilings to time (TilingChoice), or the cost model's choice alone.
    const std::optional<TilingChoice> pinned_tiles = pinned_tiling();  // checked at every size
    std::vector<TilingChoice> tilings;
    if (pinned_tiles) {
      if (*pinned_tiles == TilingChoice::small &&
          ceil_div(m(), dmma::SmallTileConfig::kBM) * ceil_div(n(), dmma::SmallTileConfig::kBN) >
              kMaxGridX)
        throw PointInvalid("size " + to_string(*point.size) +
                           " needs more than 2^31-1 blocks of 64x64");
      tilings.push_back(*pinned_tiles);
    } else if (few_large_tiles()) {
      tilings = {TilingChoice::large, TilingChoice::small};
    } else {
      tilings.push_back(TilingChoice::modelled);
    }
    time_splits_ = pinned_choice(kPinSplits, {"modelled", "timed"},
                                 "timed where the 64x64 tiles leave SMs idle") != std::size_t{0};
    const bool vec_loads = aligned_all && (copies || !misaligned);
    // Beside the copies, the operands as they are: not where that is the 8-byte instance and the
    // 16-byte one is pinned.
    const bool time_as_is = copies && !(misaligned && pinned == padded::Loads::vector);
    route_ = fastest_route_of_tilings<Route>(
        tilings, time_as_is,
        [&](TilingChoice tiling, bool widest, std::vector<Route>& routes) {
          if (widest)
            add_routes(vec_loads, copies, tiling, routes);
          else
            add_routes(!misaligned, false, tiling, routes);
        },
        a_rows_, b_rows_, stream(), point.measure, [this](const Route& r) { launch(r); },
        [this](const Route& r) { return describe(r); }, choice_);
  }

  void run() override { launch(route_); }

  nlohmann::json extra_fields() const override {
    nlohmann::json fields = CudaGemm<double>::extra_fields();
    fields["vector_copies"] = route_.vec;
    fields["k_step"] = route_.tiled.tiling.k_step;
    fields["path"] = describe(route_);
    fields["k_splits"] = route_.split->plan().splits;
    if (!choice_.empty()) fields["message"] = choice_;
    return fields;
  }

 private:
  // One way to run the problem: the instance (16-byte or 8-byte copies), whether A and B are read
  // from their padded copies, the tiling and its split of k.
  struct Route {
    bool vec = false;
    bool copies = false;
    TiledProblem tiled;
    std::optional<split_k::SplitK<double>> split;
  };

  // The kernel image this device runs must be sm_80 or later: built for an older arch only, the
  // kernel body is compiled out (gemm_dmma.cuh) and would leave C unwritten. (Every instance
  // comes from this file's one compilation: one of them tells.)
  static void require_mma_image() {
    cudaFuncAttributes attr{};
    RUNNER_CUDA_CHECK(cudaFuncGetAttributes(
        &attr, reinterpret_cast<const void*>(dmma::dmma_kernel<dmma::DefaultConfig, true>)));
    // (ptxVersion: a JIT-compiled image keeps the arch of the PTX it came from.)
    if (attr.binaryVersion < 80 || (attr.ptxVersion > 0 && attr.ptxVersion < 80))
      throw PointSkipped("dmma was built without an sm_80+ image for this device (binary " +
                         std::to_string(attr.binaryVersion) + ", PTX " +
                         std::to_string(attr.ptxVersion) + "): FP64 mma is compiled out");
  }

  // Whether C has fewer 128×128 tiles than two waves of them (one block an SM): there both
  // tilings are timed, each with its own split of k (up to 2048² on 132 SMs; 1536³ on an H200:
  // 64×64 tiles 87.9 % of cuBLAS, 128×128 65.7 %, 2000³ 88.9 / 85.5 %). From two waves up the
  // cost model chooses, untimed.
  bool few_large_tiles() const {
    const Tiling large = large_tiling(true);
    const cuda::Residency resident = cuda::residency(reinterpret_cast<const void*>(large.kernel),
                                                     large.threads, large.shared_bytes);
    const std::int64_t tiles = ceil_div(m(), large.bm) * ceil_div(n(), large.bn);
    return tiles < 2 * resident.blocks &&
           ceil_div(m(), dmma::SmallTileConfig::kBM) * ceil_div(n(), dmma::SmallTileConfig::kBN) <=
               kMaxGridX;
  }

  // The two tilings, with 16-byte copies (vec) or 8-byte ones.
  Tiling large_tiling(bool vec) const {
    return tiling_of<dmma::DefaultConfig, dmma::LargeSmemConfig>(vec, smem_optin_, 1.0);
  }
  Tiling small_tiling(bool vec) const {
    return tiling_of<dmma::SmallTileConfig, dmma::SmallTileConfig>(vec, smem_optin_,
                                                                   kSmallTileModelFactor);
  }

  // The routes of a tiling and load: the cost model's split of k, and with the 64×64 tiles where
  // they are at most kTimedSplitTilesPerSm times the SMs and the model splits k at most
  // kTimedSplits times, every other split up to kTimedSplits, each planned on the one cost model
  // of the grid.
  void add_routes(bool vec, bool copies, TilingChoice tiling, std::vector<Route>& routes) {
    const Tiling large = large_tiling(vec);
    const Tiling small = small_tiling(vec);
    const cudaFuncAttributes attr = large_attributes(vec);
    const TileGridCost grid =
        tile_grid_cost(tiling == TilingChoice::small ? small : large, m(), n(), attr);
    // Modelled: the tiling the cost model finds faster, 64×64 where 128×128 tiles leave SMs
    // idle. (Its grid has 4 times the blocks: only where that stays a valid grid.)
    TiledProblem chosen = *tile_problem(grid, m(), n(), k());
    if (tiling == TilingChoice::modelled && chosen.tiles_m * chosen.tiles_n * 4 <= kMaxGridX) {
      const TiledProblem candidate =
          *tile_problem(tile_grid_cost(small, m(), n(), attr), m(), n(), k());
      if (candidate.plan.modelled_us < chosen.plan.modelled_us) chosen = candidate;
    }
    routes.push_back(route_of(vec, copies, chosen));
    if (!time_splits_ || tiling != TilingChoice::small ||
        chosen.tiles_m * chosen.tiles_n > kTimedSplitTilesPerSm * gpu_info().sm_count ||
        chosen.plan.splits > kTimedSplits)
      return;
    for (int splits = 1; splits <= kTimedSplits; ++splits) {
      if (splits == chosen.plan.splits) continue;
      if (std::optional<TiledProblem> split = tile_problem(grid, m(), n(), k(), splits))
        routes.push_back(route_of(vec, copies, *split));
    }
  }

  // The 128×128 instance's attributes: the cost model reads its image's arch (sums_in_clusters).
  cudaFuncAttributes large_attributes(bool vec) const {
    cudaFuncAttributes attr{};
    RUNNER_CUDA_CHECK(
        cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(large_tiling(vec).kernel)));
    return attr;
  }

  // A route of the given tiling and split, with its own split-K workspace.
  Route route_of(bool vec, bool copies, const TiledProblem& tiled) {
    Route route;
    route.vec = vec;
    route.copies = copies;
    route.tiled = tiled;
    // The workspace's rows are whole 16-byte pairs whatever n is: its stores are pairs.
    route.split.emplace(tiled.plan, tiled.tiles_m * tiled.tiles_n, m(), n(), k(), tiled.in_cluster,
                        padded::padded_row<double>(n()));
    return route;
  }

  void launch(const Route& route) {
    const Tiling& t = route.tiled.tiling;
    const split_k::SplitK<double>& split = *route.split;
    note_launch(split.grid(), dim3(static_cast<unsigned>(t.threads)));
    const int cluster_splits = split.cluster_splits();
    double* const out = split.output(c_.data());
    const double* a = a_.data();
    const double* b = b_.data();
    std::int64_t lda = k(), ldb = n();
    if (route.copies) {
      padded::copy_padded(a_rows_, b_rows_, gpu_info().sm_count, stream());
      a = a_rows_.data(), b = b_rows_.data(), lda = a_rows_.ld(), ldb = b_rows_.ld();
    }
    const std::int64_t ldc = split.output_ld();
    if (cluster_splits > 1) {
      cudaLaunchAttribute cluster = split_k::cluster_of(cluster_splits);
      const cudaLaunchConfig_t config = launch_config(t, split.grid(), &cluster, stream());
      RUNNER_CUDA_CHECK(cudaLaunchKernelEx(&config, t.kernel, a, b, out, m(), n(), k(), lda, ldb,
                                           ldc, route.tiled.tiles_m, route.tiled.tiles_n,
                                           split.plan().k_chunk, cluster_splits));
    } else {
      t.kernel<<<split.grid(), t.threads, t.shared_bytes, stream()>>>(
          a, b, out, m(), n(), k(), lda, ldb, ldc, route.tiled.tiles_m, route.tiled.tiles_n,
          split.plan().k_chunk, 0);
    }
    RUNNER_CUDA_CHECK_LAUNCH();
    split.reduce_into(c_.data(), gpu_info().sm_count, stream());
  }

  std::string describe(const Route& route) const {
    return split_k::describe(route.tiled.tiling.bm, route.tiled.tiling.bn, route.split->plan(),
                             route.split->cluster_splits() > 1) +
           padded::describe_copies(a_rows_, b_rows_, route.copies);
  }

  padded::PaddedOperand<double> a_rows_, b_rows_;  // A (m×k) and B (k×n) as the kernel reads them
  int smem_optin_ = 0;       // the most shared memory a block may ask for on this device
  bool time_splits_ = true;  // RUNNER_DMMA_SPLITS unset or =timed
  Route route_;              // what runs
  std::string choice_;       // how the route was chosen, where both were timed
};

}  // namespace

RUNNER_FACTORY(dmma, make_workload<DmmaGemm>);

}  // namespace runner::kernels::gemm
