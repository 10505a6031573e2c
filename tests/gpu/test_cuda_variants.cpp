// Every CUDA variant of every kernel runs and verifies on the GPU, at sizes that are and are not
// multiples of its block or tile, in float and double where the kernel has both. A point that is
// not `ok` fails the test with its message.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "runner/api/gpu_info.hpp"
#include "runner/api/registry.hpp"
#include "runner/run/point_runner.hpp"
#include "runner/spec/config.hpp"
#include "runner/spec/matrix.hpp"
#include "tests/unit/scoped_env.hpp"

namespace runner {
namespace {

using runner::testing::ScopedEnv;

class CudaVariants : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu_info().present) GTEST_SKIP() << "no GPU: " << gpu_info().absent_reason;
  }

  // Runs every point of a config in this process; returns the variants seen, expecting `status`.
  std::set<std::string> run_all(const std::string& yaml, const std::string& status = "ok") {
    const ExperimentSpec spec = parse_config(yaml, "test.yaml");
    std::set<std::string> seen;
    for (const Point& p : expand(spec, Registry::instance())) {
      const Record r = run_point(spec, p, Registry::instance());
      EXPECT_EQ(r.value("status", ""), status) << p.key() << ": " << r.value("message", "");
      if (status == "ok") {
        EXPECT_TRUE(r.value("verified", false)) << p.key();
        EXPECT_GT(r["time_ms_median"].get<double>(), 0.0) << p.key();
        // Compared on the device with a reference built there, never the host fallback here.
        if (p.kernel != "hello") {
          EXPECT_TRUE(r["reference"] == "gpu-double" || r["reference"] == "gpu-exact")
              << p.key() << ": " << r["reference"];
        }
        // Own kernels note their launch: the columns behind a GPU point's efficiency. Library
        // calls (cuBLAS, cuDNN) cannot.
        const bool library =
            p.variant == "cublas" || p.variant == "cublas_tf32" || p.variant == "cudnn";
        if (!library) {
          const GpuInfo& g = gpu_info();
          EXPECT_GT(r.value("grid_blocks", 0), 0) << p.key();
          EXPECT_GT(r.value("block_threads", 0), 0) << p.key();
          EXPECT_GE(r.value("launch_warps", 0), r.value("grid_blocks", 0)) << p.key();
          EXPECT_EQ(r.value("resident_warps", 0),
                    std::int64_t{g.sm_count} * (g.max_threads_per_sm / g.warp_size))
              << p.key();
        }
      }
      seen.insert(p.variant);
    }
    return seen;
  }

  // Runs every point of a config in this process: each must be ok and verified; `check` then sees
  // the point and its record.
  template <class Check>
  static void run_verified(const std::string& yaml, Check check) {
    const ExperimentSpec spec = parse_config(yaml, "test.yaml");
    for (const Point& p : expand(spec, Registry::instance())) {
      const Record r = run_point(spec, p, Registry::instance());
      ASSERT_EQ(r.value("status", ""), "ok") << p.key() << ": " << r.value("message", "");
      EXPECT_TRUE(r.value("verified", false)) << p.key();
      check(p, r);
    }
  }

  // Runs every point of a config with the variable `env` set to `value`: each must be invalid,
  // its message naming the pin and, from `accepted` on, the values it takes.
  static void expect_pin_invalid(const std::string& yaml, const char* env, const char* value,
                                 const std::string& accepted = "") {
    ScopedEnv pin(env, value);
    const std::string expected = std::string(env) + " is '" + value + "'" + accepted;
    const ExperimentSpec spec = parse_config(yaml, "test.yaml");
    for (const Point& p : expand(spec, Registry::instance())) {
      const Record r = run_point(spec, p, Registry::instance());
      EXPECT_EQ(r.value("status", ""), "invalid") << env << " " << p.key();
      EXPECT_NE(r.value("message", "").find(expected), std::string::npos) << r.value("message", "");
    }
  }

  static std::set<std::string> cuda_variants_of(const std::string& kernel) {
    std::set<std::string> names;
    for (const auto& v : Registry::instance().find(kernel)->variants)
      if (v.backend == Backend::cuda) names.insert(v.name);
    return names;
  }
};

constexpr const char* kRepeat = "repeat: {warmup: 1, min_samples: 3, max_samples: 3}\n";

TEST_F(CudaVariants, GemmEveryVariantAtOddSizes) {
  std::string yaml = std::string("experiment: t\nkernel: gemm\n") + kRepeat + R"(
sweeps:
  - variant: [naive_2d, shared, cublas]
    size: [64, 127, {m: 100, n: 33, k: 257}]
    block: [[16, 16], [8, 8]]
    dtype: [float, double]
  - variant: naive_1d
    size: [127, {m: 100, n: 33, k: 257}]
    block: [[128], [1]]
    grid: [0, 7]
    dtype: [float, double]
)";
  // Tuned variants, where this build has them, at sizes that are not multiples of their tiles.
  const auto present = cuda_variants_of("gemm");
  for (const char* v : {"regtile", "cublas_tf32"})
    if (present.count(v))
      yaml += std::string("  - variant: ") + v +
              "\n    size: [128, {m: 200, n: 136, k: 257}, {m: 4000, n: 4001, k: 3999}]\n    "
              "dtype: float\n";
  if (present.count("dmma"))
    yaml +=
        "  - variant: dmma\n    size: [128, {m: 200, n: 136, k: 257}, {m: 4000, n: 4001, k: "
        "3999}]\n    dtype: double\n";
  const auto seen = run_all(yaml);
  for (const auto& v : present) EXPECT_TRUE(seen.count(v)) << "variant not exercised: " << v;
}

// regtile and dmma cut k where the tiles of C do not fill the GPU (kernels/gemm/gemm_split_k.cuh):
// small, deep-K and odd shapes (k not a multiple of the k-step or of the vector width) verify with
// k split wherever the tiling chosen has fewer tiles than the GPU has SMs, the large problem with k
// whole. (dmma tiles 1024³ with 64×64 tiles, 256 of them, and keeps k whole there.)
TEST_F(CudaVariants, TunedGemmsSplitKWhereTilesAreFew) {
  const auto present = cuda_variants_of("gemm");
  // The cost models' splits (timed, a route with k whole may win where the tiles are few).
  ScopedEnv regtile_modelled("RUNNER_REGTILE_SPLITS", "modelled"),
      dmma_modelled("RUNNER_DMMA_SPLITS", "modelled");
  for (const auto& [variant, dtype] :
       {std::pair{"regtile", "float"}, std::pair{"dmma", "double"}}) {
    if (!present.count(variant)) continue;
    const std::string yaml = std::string("experiment: t\nkernel: gemm\n") + kRepeat +
                             "sweeps:\n  - variant: " + variant + "\n    dtype: " + dtype +
                             "\n    size: [{m: 128, n: 128, k: 1000}, 1024, {m: 130, n: 260, k: "
                             "20001}, {m: 256, n: 256, "
                             "k: 16384}, {m: 300, n: 100, k: 4099}, {m: 4000, n: 4001, k: 3999}]\n";
    const ExperimentSpec spec = parse_config(yaml, "test.yaml");
    for (const Point& p : expand(spec, Registry::instance())) {
      const Record r = run_point(spec, p, Registry::instance());
      ASSERT_EQ(r.value("status", ""), "ok") << p.key() << ": " << r.value("message", "");
      EXPECT_TRUE(r.value("verified", false)) << p.key();
      const int splits = r.value("k_splits", 0);
      const std::string path = r.value("path", "");
      const std::int64_t tiles = r.value("grid_blocks", std::int64_t{0}) / std::max(splits, 1);
      if (p.size->m == 4000) {
        EXPECT_EQ(splits, 1) << p.key() << ": " << path;
      } else if (tiles < gpu_info().sm_count) {
        EXPECT_GT(splits, 1) << p.key() << ": " << path;
        EXPECT_NE(path.find("split-K " + std::to_string(splits)), std::string::npos) << path;
        EXPECT_EQ(r.value("grid_blocks", std::int64_t{0}) % splits, 0) << p.key();
      }
    }
  }
}

// dmma adds the splits of a tile in a thread-block cluster on sm_90+ where there are at most as
// many as a warp has rows of fragments (4 with 128×128 tiles, 2 with 64×64; gemm_split_k.cuh,
// SplitK), and in the workspace with the reduction kernel where there are more or the device has
// no clusters: both verify, with both tilings, and the record's path says which ran.
TEST_F(CudaVariants, DmmaSumsSplitsInAClusterWhereItCan) {
  if (!cuda_variants_of("gemm").count("dmma")) GTEST_SKIP() << "dmma not built";
  const bool clusters = gpu_info().compute_major >= 9;
  const std::string yaml = std::string("experiment: t\nkernel: gemm\n") + kRepeat +
                           "sweeps:\n  - variant: dmma\n    dtype: double\n    size: [512, 768, "
                           "{m: 300, n: 700, k: 511}, {m: 128, n: 128, k: 1000}, {m: 256, n: "
                           "256, k: 16384}, {m: 130, n: 260, k: 20001}, {m: 64, n: 64, k: "
                           "4096}]\n";
  // Both tilings pinned in turn, with the model's splits (unpinned, a route with k whole may win
  // the timing).
  ScopedEnv modelled("RUNNER_DMMA_SPLITS", "modelled");
  std::set<bool> seen;
  for (const char* tiles : {"128x128", "64x64"}) {
    ScopedEnv pinned("RUNNER_DMMA_TILES", tiles);
    run_verified(yaml, [&](const Point& p, const Record& r) {
      const int splits = r.value("k_splits", 0);
      const std::string path = r.value("path", "");
      if (splits == 1) return;  // k whole: nothing to sum
      const bool in_cluster = path.find("summed in a cluster") != std::string::npos;
      const int most_in_cluster = path.starts_with("64x64") ? 2 : 4;
      EXPECT_EQ(in_cluster, clusters && splits <= most_in_cluster) << p.key() << ": " << path;
      seen.insert(in_cluster);
    });
  }
  if (clusters) {
    EXPECT_EQ(seen, (std::set<bool>{false, true}));
  }
}

// regtile and dmma copy operands whose rows are not whole 32-byte sectors (A when k is not a
// multiple of 8 floats or 4 doubles, B when n is not) to padded rows and run their vector kernel
// on the copies (gemm_padded_operands.cuh): every combination verifies, k split or whole (in the
// workspace, whose rows are padded too, or summed in a cluster), and the path says which operands
// were copied. Their loads are pinned to `vector` here, so they always copy where a row does not
// take 16-byte loads as it is; where every row does but one is not whole sectors (130 × 132 × 1004
// floats, 130 × 134 × 1002 doubles) the copies are timed against the operands as they are, and the
// vector instance runs either way (unpinned they also time the narrower instance:
// TunedGemmsTimeNarrowLoadsAgainstCopiedOperands).
TEST_F(CudaVariants, TunedGemmsCopyMisalignedOperandsToPaddedRows) {
  const auto present = cuda_variants_of("gemm");
  ScopedEnv regtile_vector("RUNNER_REGTILE_LOADS", "vector"),
      dmma_vector("RUNNER_DMMA_LOADS", "vector");
  int ran = 0;
  for (const auto& [variant, dtype, lanes] :
       {std::tuple{"regtile", "float", 4}, std::tuple{"dmma", "double", 2}}) {
    if (!present.count(variant)) continue;
    ++ran;
    const std::string yaml = std::string("experiment: t\nkernel: gemm\n") + kRepeat +
                             "sweeps:\n  - variant: " + variant + "\n    dtype: " + dtype + R"(
    size: [{m: 128, n: 128, k: 128}, {m: 129, n: 131, k: 256}, {m: 131, n: 128, k: 257},
           {m: 257, n: 133, k: 1021}, {m: 1, n: 1, k: 1}, {m: 3, n: 5, k: 7}, {m: 1023, n: 1023, k: 1023},
           {m: 2000, n: 2003, k: 2001}, {m: 100, n: 98, k: 65539}, {m: 513, n: 513, k: 513},
           {m: 1, n: 1, k: 257}, {m: 300, n: 701, k: 511}, {m: 130, n: 132, k: 1004},
           {m: 130, n: 134, k: 1002}, {m: 1000, n: 1001, k: 1002}]
)";
    run_verified(yaml, [&, lanes = lanes](const Point& p, const Record& r) {
      const std::int64_t sector = 2 * lanes;  // elements in a 32-byte sector
      const bool copy_a = p.size->k % sector != 0, copy_b = p.size->n % sector != 0;
      const bool must_copy = p.size->k % lanes != 0 || p.size->n % lanes != 0;
      const std::string path = r.value("path", "");
      const std::string expected = copy_a && copy_b ? "A and B copied to 32-byte rows"
                                   : copy_a         ? "A copied to 32-byte rows"
                                   : copy_b         ? "B copied to 32-byte rows"
                                                    : "";
      const bool copied = path.find("copied") != std::string::npos;
      if (p.variant == "dmma") {
        EXPECT_TRUE(r.value("vector_copies", false)) << p.key();
      }
      EXPECT_EQ(path.find("scalar loads"), std::string::npos) << p.key() << ": " << path;
      if (expected.empty()) {
        EXPECT_FALSE(copied) << p.key() << ": " << path;
      } else if (must_copy || copied) {
        EXPECT_NE(path.find(", " + expected), std::string::npos) << p.key() << ": " << path;
      }
      // Timed exactly where the copies compete with the vector instance on the rows as they are.
      const std::string message = r.value("message", "");
      const std::string varied = message.substr(0, message.find(" timed at set-up"));
      EXPECT_EQ(varied.find("loads") != std::string::npos, !expected.empty() && !must_copy)
          << p.key() << ": " << message;
    });
  }
  if (ran == 0) GTEST_SKIP() << "neither regtile nor dmma in this build";
}

// Seed 003's q sweep: q blocks of one thread occupy q warps (a block never shares a warp), the
// divisor of the point's efficiency.
TEST_F(CudaVariants, OneThreadBlocksOccupyOneWarpEach) {
  const std::string yaml = std::string("experiment: t\nkernel: gemm\n") + kRepeat + R"(
sweeps:
  - variant: naive_1d
    size: [{m: 40, n: 30, k: 20}]
    block: [[1], [33]]
    grid: [1, 7, 1024]
    dtype: double
)";
  const ExperimentSpec spec = parse_config(yaml, "test.yaml");
  for (const Point& p : expand(spec, Registry::instance())) {
    const Record r = run_point(spec, p, Registry::instance());
    ASSERT_EQ(r.value("status", ""), "ok") << p.key() << ": " << r.value("message", "");
    const std::int64_t q = r.value("grid_blocks", 0);
    EXPECT_EQ(q, *p.grid) << p.key();
    EXPECT_EQ(r.value("launch_warps", 0), p.block->x == 1 ? q : 2 * q) << p.key();  // 33: 2 warps
  }
}

TEST_F(CudaVariants, TransposeEveryVariantAtOddSizes) {
  const std::string yaml = std::string("experiment: t\nkernel: transpose\n") + kRepeat + R"(
sweeps:
  - variant: [naive_row, naive_col]
    size: [64, {m: 1000, n: 333}, 67]
    block: [[16, 16], [32, 8]]
    dtype: [float, double]
  - variant: [smem, smem_pad, tiled_rows, copy]
    size: [64, {m: 1000, n: 333}, 67]
    block: [[32, 8], [16, 16]]
    dtype: [float, double]
)";
  std::string text = yaml;
  if (cuda_variants_of("transpose").count("tiled_vec"))
    text +=
        "  - variant: tiled_vec\n    size: [64, {m: 1000, n: 333}, 67, 8192]\n    dtype: [float, "
        "double]\n";
  const auto seen = run_all(text);
  for (const auto& v : cuda_variants_of("transpose"))
    EXPECT_TRUE(seen.count(v)) << "variant not exercised: " << v;
}

// tiled_vec's paths: `strips` where a side is 32 or fewer (few rows or few columns: a strip of
// every row or column a block, from one element to a strip longer than the matrix), `aligned`
// where input rows are whole 16-byte vectors and output rows whole 32-byte sectors, `segments`
// elsewhere, whose output segments start on sector boundaries anywhere in the tile, with one tile
// a block or (where the matrix gives every SM two blocks of them) two: every residue of n and m
// modulo 8, edge tiles of 1 to 63 rows or columns, the first tile's segments that start before
// the matrix, a short side of 1 to 33. (Pinned to its vector kernels: unpinned, the classic
// kernel is timed beside them, TransposeTiledVecTimesTheClassicKernel.)
TEST_F(CudaVariants, TransposeTiledVecBothPathsAtEveryAlignment) {
  const std::string yaml = std::string("experiment: t\nkernel: transpose\n") + kRepeat + R"(
sweeps:
  - variant: tiled_vec
    size: [1, 2, 3, 5, 63, 65, 66, 127, 129, 130, 131, {m: 1, n: 1001}, {m: 1001, n: 1},
           {m: 3, n: 4093}, {m: 4093, n: 3}, {m: 64, n: 67}, {m: 67, n: 64}, {m: 70, n: 129},
           {m: 128, n: 66}, {m: 257, n: 255}, {m: 1000, n: 333}, {m: 1025, n: 4097}, 2049,
           {m: 68, n: 68}, {m: 1028, n: 1030}, {m: 132, n: 64}, 4098, {m: 15, n: 200},
           {m: 16, n: 200}, {m: 17, n: 200}, {m: 200, n: 17}, {m: 2, n: 100000},
           {m: 2051, n: 4099}, {m: 4100, n: 1027}, {m: 4103, n: 130}, {m: 32, n: 5000},
           {m: 33, n: 5000}, {m: 5000, n: 32}, {m: 5000, n: 33}, {m: 7, n: 100003},
           {m: 100003, n: 31}, {m: 2, n: 2048}, {m: 2, n: 2049}, {m: 31, n: 132}, {m: 4, n: 4},
           {m: 2, n: 1025}, {m: 1025, n: 2}, {m: 31, n: 67}, {m: 67, n: 31}, {m: 32, n: 65}]
    dtype: [float, double]
)";
  const ExperimentSpec spec = parse_config(yaml, "test.yaml");
  ScopedEnv vector_kernels("RUNNER_TILED_VEC_KERNEL", "vector");
  std::set<std::string> paths;
  for (const Point& p : expand(spec, Registry::instance())) {
    const Record r = run_point(spec, p, Registry::instance());
    EXPECT_EQ(r.value("status", ""), "ok") << p.key() << ": " << r.value("message", "");
    EXPECT_EQ(r["reference"], "gpu-exact") << p.key();
    const std::int64_t element = p.dtype == Dtype::f64 ? 8 : 4;
    const bool aligned = p.size->n % (16 / element) == 0 && p.size->m % (32 / element) == 0;
    if (p.variant == "tiled_vec") {
      const std::string path = r.value("path", "");
      if (std::min(p.size->m, p.size->n) <= 32)
        EXPECT_EQ(path, p.size->m <= p.size->n ? "strips, few rows" : "strips, few columns")
            << p.key();
      else if (aligned)
        EXPECT_EQ(path, "aligned") << p.key();
      else
        EXPECT_TRUE(path == "segments" || path == "segments, 2 tiles a block") << p.key() << path;
    }
    paths.insert(r.value("path", ""));
  }
  // (On a GPU of up to 280 SMs 2049², 561 blocks of two float tiles, takes two a block; shapes of
  // fewer than 256 rows always take one.)
  if (gpu_info().sm_count <= 280) {
    EXPECT_EQ(paths, (std::set<std::string>{"aligned", "segments", "segments, 2 tiles a block",
                                            "strips, few rows", "strips, few columns"}));
  }
}

TEST_F(CudaVariants, Conv2dEveryVariantAtOddSizes) {
  const std::string yaml = std::string("experiment: t\nkernel: conv2d\n") + kRepeat + R"(
sweeps:
  - variant: [naive, shared]
    size: [64, 129, {m: 100, n: 37}]
    kernel_size: [1, 3, 7, 15]
    block: [[16, 16], [32, 8], [8, 8]]
)";
  std::string text = yaml;
  for (const char* v : {"shared_reg", "cudnn"})
    if (cuda_variants_of("conv2d").count(v))
      text += std::string("  - variant: ") + v +
              "\n    size: [64, 129, 1000]\n    kernel_size: [3, 5, 7]\n";
  const auto seen = run_all(text);
  for (const auto& v : cuda_variants_of("conv2d"))
    EXPECT_TRUE(seen.count(v)) << "variant not exercised: " << v;
}

// shared_reg's paths by filter side, at every row length mod 4 (each its own instance: the tile
// rows' shifts are compiled in), at sizes that are not multiples of the tile (n within 3 of a
// multiple of 128 among them: the extra tile column), images with tiles inside and on the border
// (the copies without and with bounds tests), rows shorter than one vector, and filters wider
// than the image: every tap unrolled up to ks = 15, filter rows looped beyond (17, 21, 31: the
// last group of four filter rows short by 3, 3 and 1). Rows of n % 8 == 0 floats, and every n at
// ks = 7 (an instance per n mod 4), run the persistent kernel: from a single tile to more tiles
// than the GPU holds blocks (1030 × 4096, 1030 × 4095, 2001 × 2056: blocks take a second tile,
// the last tile row and column partial), every launch counting on the counter the one before
// zeroed (the last of the sampled launches is verified too).
// The candidates a shared_reg record's message says were timed at set-up ("tiles and form timed
// at set-up (…): PATH 0.0123 ms; PATH 0.0101 ms"): each path and its median.
std::map<std::string, double> timed_candidates(const std::string& message) {
  std::map<std::string, double> timed;
  const std::size_t list = message.find("): ");
  if (list == std::string::npos) return timed;
  std::size_t at = list + 3;
  while (at < message.size()) {
    std::size_t end = message.find("; ", at);
    if (end == std::string::npos) end = message.size();
    const std::string entry = message.substr(at, end - at);  // "PATH 0.0123 ms"
    const std::size_t number = entry.rfind(' ', entry.size() - 4);
    timed[entry.substr(0, number)] = std::stod(entry.substr(number + 1));
    at = end + 2;
  }
  return timed;
}

// A timed choice: the message, which starts with `header`, lists the candidates timed at set-up,
// and the path is the fastest of them (any of those with the lowest printed median). Returns the
// candidates listed.
std::set<std::string> fastest_timed(const Point& p, const Record& r, const std::string& header) {
  const std::string path = r.value("path", ""), message = r.value("message", "");
  EXPECT_TRUE(message.starts_with(header)) << p.key() << ": " << message;
  const std::map<std::string, double> timed = timed_candidates(message);
  std::set<std::string> listed;
  double best = 1e300;
  for (const auto& [candidate, ms] : timed) listed.insert(candidate), best = std::min(best, ms);
  EXPECT_TRUE(timed.count(path)) << p.key() << ": " << path << " not in " << message;
  if (timed.count(path)) {
    EXPECT_EQ(timed.at(path), best) << p.key() << ": " << message;
  }
  return listed;
}
// shared_reg's timed choice lists exactly `expected`.
void expect_fastest_timed(const Point& p, const Record& r, const std::set<std::string>& expected) {
  EXPECT_EQ(fastest_timed(p, r, "tiles and form timed at set-up"), expected) << p.key();
}

// tiled_vec times its shape rule's path beside the classic kernel of tiled_rows (32 × 32 tiles of
// 32 × 8 threads, 64 × 64 of 64 × 8): unpinned, the message lists the three and the fastest runs,
// and where the short side is 33 to 64 the strips path as a fourth; pinned
// (RUNNER_TILED_VEC_KERNEL), the one named runs untimed. Every one verifies on shapes where the
// classic tiles are whole, cut at one edge or both, or hold a single element, and on strips of 33
// to 64 rows or columns, whole or cut.
TEST_F(CudaVariants, TransposeTiledVecTimesTheClassicKernel) {
  if (!cuda_variants_of("transpose").count("tiled_vec")) GTEST_SKIP() << "tiled_vec not built";
  const std::string yaml = std::string("experiment: t\nkernel: transpose\n") + kRepeat + R"(
sweeps:
  - variant: tiled_vec
    size: [1, {m: 32, n: 5000}, {m: 5000, n: 32}, {m: 33, n: 3001}, {m: 31, n: 4099}, 1100,
           {m: 64, n: 130}, {m: 65, n: 63}, {m: 1000, n: 333}, {m: 2, n: 70001}, 2048,
           {m: 3001, n: 33}, {m: 48, n: 1001}, {m: 1003, n: 57}, {m: 64, n: 100003}]
    dtype: [float, double]
)";
  const std::string classic32 = "classic 32x32 tiles, 32x8 threads",
                    classic64 = "classic 64x64 tiles, 64x8 threads";
  run_verified(yaml, [&](const Point& p, const Record& r) {
    const std::set<std::string> listed = fastest_timed(p, r, "kernels timed at set-up");
    const std::int64_t short_side = std::min(p.size->m, p.size->n);
    const bool strips = short_side > 32 && short_side <= 64;
    EXPECT_EQ(listed.size(), strips ? 4u : 3u) << p.key() << ": " << r.value("message", "");
    EXPECT_TRUE(listed.count(classic32) && listed.count(classic64)) << p.key();
    if (strips) {
      EXPECT_TRUE(listed.count(p.size->m > p.size->n ? "strips, few columns" : "strips, few rows"))
          << p.key() << ": " << r.value("message", "");
    }
  });
  for (const auto& [pin, path] : {std::pair{"classic32", classic32}, {"classic64", classic64}}) {
    ScopedEnv pinned("RUNNER_TILED_VEC_KERNEL", pin);
    run_verified(yaml, [&, path = path](const Point& p, const Record& r) {
      EXPECT_EQ(r.value("path", ""), path) << p.key();
      EXPECT_EQ(r.value("message", ""), "") << p.key();  // one kernel: nothing timed
      EXPECT_EQ(r.value("block_threads", 0), path == classic32 ? 256 : 512) << p.key();
    });
  }
  {
    ScopedEnv pinned("RUNNER_TILED_VEC_KERNEL", "vector");
    run_verified(yaml, [&](const Point& p, const Record& r) {
      EXPECT_FALSE(r.value("path", "").starts_with("classic")) << p.key();
      EXPECT_EQ(r.value("message", ""), "") << p.key();
    });
  }
  expect_pin_invalid(yaml, "RUNNER_TILED_VEC_KERNEL", "tiles", ": vector, classic32 or classic64");
}

// regtile and dmma where k or n is not a multiple of 4 floats or 2 doubles: pinned to `scalar`
// (RUNNER_REGTILE_LOADS, RUNNER_DMMA_LOADS), their narrower instance (4-byte loads, 8-byte
// copies) reads A and B as they are; unpinned, it and the vector instance on padded copies are
// timed at set-up, the message lists both, and the faster runs. Where every row takes 16-byte
// loads but k or n is not whole 32-byte sectors (130 × 132 × 1004 floats, 130 × 134 × 1002
// doubles), the vector instance is timed on the copies and on the operands as they are, and
// pinned to `scalar` it reads them as they are, untimed. Every point verifies, k split or
// not. An unknown pin makes the point invalid, at any size. (The tilings and dmma's splits are
// pinned here, so that only the loads are timed: RegtileTimesSmallTilesWhereCHasFewTiles,
// DmmaTimesItsTilingsWhereCHasFewTiles, DmmaTimesSplitsWhereItsSmallTilesLeaveSmsIdle.)
TEST_F(CudaVariants, TunedGemmsTimeNarrowLoadsAgainstCopiedOperands) {
  const auto present = cuda_variants_of("gemm");
  ScopedEnv regtile_tiles("RUNNER_REGTILE_TILES", "128x128"),
      regtile_splits("RUNNER_REGTILE_SPLITS", "modelled"), dmma_tiles("RUNNER_DMMA_TILES", "64x64"),
      dmma_splits("RUNNER_DMMA_SPLITS", "modelled");
  int ran = 0;
  for (const auto& [variant, dtype, lanes, pin] :
       {std::tuple{"regtile", "float", 4, "RUNNER_REGTILE_LOADS"},
        std::tuple{"dmma", "double", 2, "RUNNER_DMMA_LOADS"}}) {
    if (!present.count(variant)) continue;
    ++ran;
    SCOPED_TRACE(variant);
    const std::string yaml = std::string("experiment: t\nkernel: gemm\n") + kRepeat +
                             "sweeps:\n  - variant: " + variant + "\n    dtype: " + dtype + R"(
    size: [{m: 129, n: 131, k: 256}, {m: 131, n: 128, k: 257}, {m: 257, n: 133, k: 1021},
           {m: 3, n: 5, k: 7}, {m: 511, n: 511, k: 511}, {m: 100, n: 98, k: 65539},
           {m: 1023, n: 1023, k: 1023}, {m: 2000, n: 2003, k: 2001}, {m: 128, n: 128, k: 128},
           {m: 130, n: 132, k: 1004}, {m: 130, n: 134, k: 1002}]
)";
    const auto misaligned = [lanes = lanes](const Point& p) {
      return p.size->k % lanes != 0 || p.size->n % lanes != 0;
    };
    const auto unsectored = [sector = 2 * lanes](const Point& p) {
      return p.size->k % sector != 0 || p.size->n % sector != 0;
    };
    // The narrower instance: regtile says so in its path, dmma in vector_copies.
    const auto narrow = [](const Record& r) {
      return r.value("path", "").ends_with(", scalar loads") ||
             (r.contains("vector_copies") && r["vector_copies"].is_boolean() &&
              !r["vector_copies"].get<bool>());
    };
    {
      ScopedEnv scalar(pin, "scalar");
      run_verified(yaml, [&](const Point& p, const Record& r) {
        const std::string path = r.value("path", "");
        EXPECT_EQ(path.find("copied"), std::string::npos) << p.key() << ": " << path;
        EXPECT_EQ(narrow(r), misaligned(p)) << p.key() << ": " << path;
        EXPECT_EQ(r.value("message", "").find("timed"), std::string::npos) << p.key();
      });
    }
    run_verified(yaml, [&](const Point& p, const Record& r) {
      const std::string path = r.value("path", ""), message = r.value("message", "");
      if (!unsectored(p)) {
        EXPECT_EQ(message.find("timed"), std::string::npos) << p.key() << ": " << message;
        EXPECT_FALSE(narrow(r)) << p.key() << ": " << path;
        return;
      }
      const std::set<std::string> listed = fastest_timed(p, r, "loads timed at set-up");
      ASSERT_EQ(listed.size(), 2u) << p.key() << ": " << message;
      int copied = 0;
      for (const std::string& candidate : listed)
        copied += candidate.find("copied to 32-byte rows") != std::string::npos;
      EXPECT_EQ(copied, 1) << p.key() << ": " << message;
      EXPECT_EQ(narrow(r), misaligned(p) && path.find("copied") == std::string::npos)
          << p.key() << ": " << path;
    });
    expect_pin_invalid(yaml, pin, "fastest", ": vector or scalar");
  }
  if (ran == 0) GTEST_SKIP() << "neither regtile nor dmma in this build";
}

// regtile times its two 64 × 64 tilings beside the 128 × 128 one where C has fewer 128 × 128
// tiles than two waves of resident blocks (gemm_regtile.cu), with both loads where k or n is not
// a multiple of 8: the message lists every tiling and load timed, and the fastest runs. Where C
// has many tiles (4096 × 4096) the 128 × 128 tiles run untimed. Pinned (RUNNER_REGTILE_TILES),
// each 64 × 64 tiling verifies at edge, odd, split and deep-K sizes; an unknown pin makes the
// point invalid.
TEST_F(CudaVariants, RegtileTimesSmallTilesWhereCHasFewTiles) {
  if (!cuda_variants_of("gemm").count("regtile")) GTEST_SKIP() << "regtile not built";
  const std::string sizes = R"(
    size: [512, 513, {m: 300, n: 700, k: 511}, {m: 129, n: 131, k: 256}, {m: 3, n: 5, k: 7},
           {m: 100, n: 98, k: 65539}, {m: 1000, n: 1001, k: 1002}, {m: 4096, n: 4096, k: 64}]
)";
  const std::string yaml = std::string("experiment: t\nkernel: gemm\n") + kRepeat +
                           "sweeps:\n  - variant: regtile\n    dtype: float" + sizes;
  // The model's splits: only the tilings and loads are timed.
  ScopedEnv modelled("RUNNER_REGTILE_SPLITS", "modelled");
  // Two waves of 2 blocks an SM: 4096 × 4096 (1024 tiles) is past them on GPUs of up to 255 SMs.
  run_verified(yaml, [&](const Point& p, const Record& r) {
    const std::string path = r.value("path", ""), message = r.value("message", "");
    if (p.size->m == 4096) {
      EXPECT_EQ(message.find("timed"), std::string::npos) << p.key() << ": " << message;
      EXPECT_TRUE(path.starts_with("128x128 tiles")) << p.key() << ": " << path;
      return;
    }
    const bool unsectored = p.size->k % 8 != 0 || p.size->n % 8 != 0;  // 32-byte rows
    const std::set<std::string> listed = fastest_timed(
        p, r, unsectored ? "tiles and loads timed at set-up" : "tiles timed at set-up");
    ASSERT_EQ(listed.size(), unsectored ? 6u : 3u) << p.key() << ": " << message;
    std::map<std::string, int> per_tiling;
    for (const std::string& candidate : listed)
      ++per_tiling[candidate.substr(0, candidate.find(' '))];
    const int each = unsectored ? 2 : 1;
    EXPECT_EQ(per_tiling,
              (std::map<std::string, int>{{"128x128", each}, {"64x64", each}, {"64x64-2w", each}}))
        << p.key() << ": " << message;
  });
  for (const char* tiles : {"64x64", "64x64-2w"}) {
    ScopedEnv small_tiles("RUNNER_REGTILE_TILES", tiles);
    run_verified(yaml, [&](const Point& p, const Record& r) {
      const std::string path = r.value("path", ""), message = r.value("message", "");
      EXPECT_TRUE(path.starts_with(std::string(tiles) + " tiles")) << p.key() << ": " << path;
      const bool unsectored = p.size->k % 8 != 0 || p.size->n % 8 != 0;  // 32-byte rows
      EXPECT_EQ(message.starts_with("loads timed at set-up"), unsectored)
          << p.key() << ": " << message;
    });
  }
  expect_pin_invalid(yaml, "RUNNER_REGTILE_TILES", "32x32", ": 128x128, 64x64 or 64x64-2w");
}

// regtile times the splits of k of a tiling, 1 to 4 beside the cost model's, where its tiles are
// fewer than its resident blocks (128 × 128 tiles: two an SM; 1000³: 64 tiles; 2048³: 256 on
// GPUs of 129 SMs or more) and the model splits k at most 4 times: the message says "splits",
// lists each split of each load, and the fastest runs, verified. Where the tiles are more
// (4096²), k is one k-step (3 × 5 × 7) or the model splits k more (deep K) only the model's split
// runs. RUNNER_REGTILE_SPLITS=modelled keeps the model's everywhere; an unknown value makes the
// point invalid.
TEST_F(CudaVariants, RegtileTimesSplitsWhereItsTilesLeaveBlocksIdle) {
  if (!cuda_variants_of("gemm").count("regtile")) GTEST_SKIP() << "regtile not built";
  const std::string yaml = std::string("experiment: t\nkernel: gemm\n") + kRepeat +
                           "sweeps:\n  - variant: regtile\n    dtype: float\n    size: [1000, "
                           "{m: 129, n: 131, k: 256}, {m: 300, n: 700, k: 511}, {m: 3, n: 5, "
                           "k: 7}, 2048, {m: 4096, n: 4096, k: 256}, {m: 100, n: 98, k: 65539}]\n";
  ScopedEnv large_tiles("RUNNER_REGTILE_TILES", "128x128");
  const auto split_of = [](const std::string& path) {
    const std::size_t at = path.find("split-K ");
    return at == std::string::npos ? 1 : std::stoi(path.substr(at + 8));
  };
  int timed = 0;
  run_verified(yaml, [&](const Point& p, const Record& r) {
    const std::string message = r.value("message", "");
    const std::int64_t tiles = ((p.size->m + 127) / 128) * ((p.size->n + 127) / 128);
    const std::int64_t k_steps = (p.size->k + 15) / 16;
    // Splits 1 and 2 are both possible where k has at least 4 k-steps of 16 (chunks of 2). A
    // split above 4 ran untimed: the model's, where it splits k more than 4 times.
    if (tiles >= 2 * gpu_info().sm_count || k_steps < 4 || r.value("k_splits", 0) > 4) {
      EXPECT_EQ(message.find("splits"), std::string::npos) << p.key() << ": " << message;
      return;
    }
    ++timed;
    const std::size_t header = message.find(" timed at set-up");
    ASSERT_NE(header, std::string::npos) << p.key() << ": " << message;
    EXPECT_NE(message.substr(0, header).find("splits"), std::string::npos)
        << p.key() << ": " << message;
    // The splits of each load (on the copies of A and B, or as they are).
    std::map<bool, std::set<int>> splits_by_load;
    for (const std::string& candidate : fastest_timed(p, r, message.substr(0, header + 16)))
      splits_by_load[candidate.find("copied") != std::string::npos].insert(split_of(candidate));
    ASSERT_FALSE(splits_by_load.empty()) << p.key() << ": " << message;
    for (const auto& [copied, splits] : splits_by_load) {
      std::set<int>
          expected;  // every split of 1 to 4 whose chunks are their own, 2 k-steps or more
      for (std::int64_t s = 1; s <= 4; ++s) {
        const std::int64_t chunk = (k_steps + s - 1) / s;
        if (s == 1 || (s * 2 <= k_steps && (k_steps + chunk - 1) / chunk == s))
          expected.insert(static_cast<int>(s));
      }
      EXPECT_EQ(splits, expected) << p.key() << (copied ? " copied" : "") << ": " << message;
    }
  });
  EXPECT_GE(timed, 2);  // 1000³ and 129 × 131 × 256 at least
  {
    ScopedEnv modelled("RUNNER_REGTILE_SPLITS", "modelled");
    run_verified(yaml, [&](const Point& p, const Record& r) {
      EXPECT_EQ(r.value("message", "").find("splits"), std::string::npos)
          << p.key() << ": " << r.value("message", "");
    });
  }
  expect_pin_invalid(yaml, "RUNNER_REGTILE_SPLITS", "4", ": modelled or timed");
}

// regtile adds a tile's splits in a thread-block cluster on sm_90+ with its 64 × 64 tilings (whose
// shared memory holds a partial tile), up to 8 splits (the rows of a thread's tile): pinned
// (RUNNER_REGTILE_SUM=cluster) every such split verifies, at edge, odd, copied and deep-K sizes,
// and the path says so; with 128 × 128 tiles, more than 8 splits or =workspace, the workspace sums
// them. Unpinned, where the splits are timed, each split of a 64 × 64 tiling is timed both ways.
// An unknown value makes the point invalid.
TEST_F(CudaVariants, RegtileSumsSplitsInAClusterWhereItCan) {
  if (!cuda_variants_of("gemm").count("regtile")) GTEST_SKIP() << "regtile not built";
  const bool clusters = gpu_info().compute_major >= 9;
  const std::string yaml = std::string("experiment: t\nkernel: gemm\n") + kRepeat +
                           "sweeps:\n  - variant: regtile\n    dtype: float\n    size: [512, 1000, "
                           "{m: 300, n: 700, k: 511}, {m: 128, n: 128, k: 1000}, {m: 129, n: 131, "
                           "k: 256}, {m: 1000, n: 1001, k: 1002}, {m: 65, n: 63, k: 1021}, {m: "
                           "256, n: 256, k: 16384}, {m: 3, n: 5, k: 7}]\n";
  const std::string in_cluster = " summed in a cluster";
  {
    ScopedEnv modelled("RUNNER_REGTILE_SPLITS", "modelled");
    std::set<std::string> seen;
    for (const char* tiles : {"64x64", "64x64-2w", "128x128"}) {
      ScopedEnv pin_tiles("RUNNER_REGTILE_TILES", tiles);
      for (const char* sum : {"cluster", "workspace"}) {
        ScopedEnv pin_sum("RUNNER_REGTILE_SUM", sum);
        run_verified(yaml, [&, tiles = std::string(tiles), sum = std::string(sum)](
                               const Point& p, const Record& r) {
          const int splits = r.value("k_splits", 0);
          const std::string path = r.value("path", "");
          const bool summed = path.find(in_cluster) != std::string::npos;
          const bool expected =
              clusters && sum == "cluster" && tiles != "128x128" && splits >= 2 && splits <= 8;
          EXPECT_EQ(summed, expected) << tiles << ", " << sum << ", " << p.key() << ": " << path;
          if (summed) seen.insert(tiles);
        });
      }
    }
    if (clusters) {
      EXPECT_EQ(seen, (std::set<std::string>{"64x64", "64x64-2w"}));
    }
  }
  ScopedEnv pin_tiles("RUNNER_REGTILE_TILES", "64x64");
  int timed = 0;
  run_verified(yaml, [&](const Point& p, const Record& r) {
    const std::string message = r.value("message", "");
    const std::size_t header = message.find(" timed at set-up");
    if (header == std::string::npos ||
        message.substr(0, header).find("splits") == std::string::npos)
      return;  // splits not timed here
    const std::set<std::string> listed = fastest_timed(p, r, message.substr(0, header + 16));
    for (const std::string& candidate : listed) {
      const std::size_t at = candidate.find("split-K ");
      if (at == std::string::npos || candidate.find(in_cluster) != std::string::npos) continue;
      const std::size_t end = candidate.find_first_not_of("0123456789", at + 8);
      const std::string both =
          candidate.substr(0, end) + in_cluster + candidate.substr(std::min(end, candidate.size()));
      EXPECT_EQ(listed.count(both), clusters ? 1u : 0u) << p.key() << ": " << message;
      ++timed;
    }
  });
  EXPECT_GE(timed, 2);  // 1000³ and 512³ at least
  expect_pin_invalid(yaml, "RUNNER_REGTILE_SUM", "dsmem", ": workspace or cluster");
}

// dmma times its 64 × 64 tiles beside the 128 × 128 ones where C has fewer 128 × 128 tiles than two
// waves of them (1200³: 100 such tiles), with both loads where k or n is not a multiple of 4: the
// message lists each, and the fastest runs; where C has many (4096³) the cost model chooses 128 ×
// 128, untimed. Pinned (RUNNER_DMMA_TILES) each tiling verifies at odd, split and deep-K sizes; an
// unknown pin makes the point invalid.
TEST_F(CudaVariants, DmmaTimesItsTilingsWhereCHasFewTiles) {
  if (!cuda_variants_of("gemm").count("dmma")) GTEST_SKIP() << "dmma not built";
  const std::string yaml = std::string("experiment: t\nkernel: gemm\n") + kRepeat +
                           "sweeps:\n  - variant: dmma\n    dtype: double\n    size: [1200, "
                           "{m: 1201, n: 1199, k: 1203}, {m: 3000, n: 800, k: 800}, 4096, "
                           "{m: 3, n: 5, k: 7}, {m: 130, n: 260, k: 20001}, {m: 4095, n: 4097, "
                           "k: 4099}]\n";
  // Two waves of one block an SM: 4096² (1024 tiles) is past them on GPUs of up to 511 SMs. The
  // model's splits: only the tilings and loads are timed.
  ScopedEnv modelled("RUNNER_DMMA_SPLITS", "modelled");
  run_verified(yaml, [&](const Point& p, const Record& r) {
    const std::string path = r.value("path", ""), message = r.value("message", "");
    const bool unsectored = p.size->k % 4 != 0 || p.size->n % 4 != 0;  // 32-byte rows
    if (p.size->m >= 4095) {
      EXPECT_FALSE(message.starts_with("tiles")) << p.key() << ": " << message;
      // The model's choice depends on the SM count: these sizes make it on GPUs of 100 to 200.
      if (gpu_info().sm_count >= 100 && gpu_info().sm_count <= 200) {
        EXPECT_TRUE(path.starts_with("128x128")) << p.key() << ": " << path;
      }
      return;
    }
    const std::set<std::string> listed = fastest_timed(
        p, r, unsectored ? "tiles and loads timed at set-up" : "tiles timed at set-up");
    ASSERT_EQ(listed.size(), unsectored ? 4u : 2u) << p.key() << ": " << message;
    int small = 0;
    for (const std::string& candidate : listed) small += candidate.starts_with("64x64 tiles");
    EXPECT_EQ(small, static_cast<int>(listed.size() / 2)) << p.key() << ": " << message;
  });
  for (const char* tiles : {"128x128", "64x64"}) {
    ScopedEnv pinned("RUNNER_DMMA_TILES", tiles);
    run_verified(yaml, [&](const Point& p, const Record& r) {
      const std::string path = r.value("path", "");
      EXPECT_TRUE(path.starts_with(std::string(tiles) + " tiles")) << p.key() << ": " << path;
    });
  }
  expect_pin_invalid(yaml, "RUNNER_DMMA_TILES", "64x32", ": 128x128 or 64x64");
}

// dmma times the splits of k of its 64 × 64 tiles, 1 to 4 beside the cost model's, where those
// tiles are at most twice the SMs (256³: 16 tiles; 513³: 81; 300 × 500 × 700: 40;
// 800 × 800 × 1000: 169) and the model splits k at most 4 times: the message says "splits", lists
// each, and the fastest runs, verified. Where the tiles are more (1200³: 361), k is one k-step
// (3 × 5 × 7) or the model splits deep K more (130 × 260 × 20001) only the model's split runs.
// RUNNER_DMMA_SPLITS=modelled keeps the model's everywhere; an unknown value makes the point
// invalid.
TEST_F(CudaVariants, DmmaTimesSplitsWhereItsSmallTilesLeaveSmsIdle) {
  if (!cuda_variants_of("gemm").count("dmma")) GTEST_SKIP() << "dmma not built";
  const std::string yaml = std::string("experiment: t\nkernel: gemm\n") + kRepeat +
                           "sweeps:\n  - variant: dmma\n    dtype: double\n    size: [256, 513, "
                           "{m: 300, n: 500, k: 700}, {m: 130, n: 260, k: 20001}, {m: 3, n: 5, "
                           "k: 7}, 1200, {m: 64, n: 64, k: 64}, {m: 800, n: 800, k: 1000}]\n";
  const auto split_of = [](const std::string& path) {
    const std::size_t at = path.find("split-K ");
    return at == std::string::npos ? 1 : std::stoi(path.substr(at + 8));
  };
  for (const char* tiles : {"", "64x64"}) {
    ScopedEnv pinned("RUNNER_DMMA_TILES", tiles);
    run_verified(yaml, [&](const Point& p, const Record& r) {
      const std::string message = r.value("message", "");
      const std::int64_t small_tiles = ((p.size->m + 63) / 64) * ((p.size->n + 63) / 64);
      const std::int64_t k_steps = (p.size->k + 15) / 16;
      // Splits 1 and 2 are both possible where k has at least 8 k-steps of 16 (chunks of 4). A
      // split above 4 ran untimed: the model's, where it splits deep K more than 4 times.
      if (small_tiles > 2 * gpu_info().sm_count || k_steps < 8 || r.value("k_splits", 0) > 4) {
        EXPECT_EQ(message.find("splits"), std::string::npos) << p.key() << ": " << message;
        return;
      }
      const std::size_t header = message.find(" timed at set-up");
      ASSERT_NE(header, std::string::npos) << p.key() << ": " << message;
      EXPECT_NE(message.substr(0, header).find("splits"), std::string::npos)
          << p.key() << ": " << message;
      // The 64x64 candidates' splits, by load (on the copies of A and B, or as they are).
      std::map<bool, std::set<int>> splits_by_load;
      for (const std::string& candidate : fastest_timed(p, r, message.substr(0, header + 16))) {
        if (candidate.starts_with("64x64 tiles"))
          splits_by_load[candidate.find("copied") != std::string::npos].insert(split_of(candidate));
      }
      ASSERT_FALSE(splits_by_load.empty()) << p.key() << ": " << message;
      for (const auto& [copied, splits] : splits_by_load) {
        // Every split of 1 to 4 whose chunks are their own, at least 4 k-steps a chunk.
        for (std::int64_t s = 1; s <= 4; ++s) {
          const std::int64_t chunk = (k_steps + s - 1) / s;
          if (s == 1 || (s * 4 <= k_steps && (k_steps + chunk - 1) / chunk == s)) {
            EXPECT_TRUE(splits.count(static_cast<int>(s)))
                << p.key() << (copied ? " copied" : "") << ", split " << s << ": " << message;
          }
        }
      }
    });
  }
  {
    ScopedEnv modelled("RUNNER_DMMA_SPLITS", "modelled");
    run_verified(yaml, [&](const Point& p, const Record& r) {
      EXPECT_EQ(r.value("message", "").find("splits"), std::string::npos)
          << p.key() << ": " << r.value("message", "");
    });
  }
  expect_pin_invalid(yaml, "RUNNER_DMMA_SPLITS", "4", ": modelled or timed");
}

// shared_reg at every filter side and n mod 4, tiles inside the image and on its border, n within 3
// of a multiple of 128 (the extra tile column of shifted rows), rows of 1 to 5 floats, and the
// persistent form from one tile to more tiles than resident blocks (1030 × 4096, 1030 × 4095: its
// blocks take a second tile). To ks = 9 each form is run pinned (RUNNER_CONV2D_FORM) and then
// chosen by timing at set-up, which the record's message reports; wider filters have the grid
// only, untimed. The tiles are pinned to 128 × 32 (some of these images would also time a narrow
// shape: Conv2dSharedRegNarrowTiles).
TEST_F(CudaVariants, Conv2dSharedRegFormsByFilterSide) {
  if (!cuda_variants_of("conv2d").count("shared_reg")) GTEST_SKIP() << "shared_reg not built";
  const std::string yaml = std::string("experiment: t\nkernel: conv2d\n") + kRepeat + R"(
sweeps:
  - variant: shared_reg
    size: [{m: 131, n: 67}, {m: 20, n: 300}, {m: 70, n: 130}, {m: 45, n: 257}, {m: 9, n: 5},
           {m: 3, n: 2}, {m: 1, n: 1}, {m: 7, n: 253}, {m: 33, n: 254}, {m: 66, n: 255},
           {m: 150, n: 601}, {m: 100, n: 522}, {m: 77, n: 519}, {m: 90, n: 1000}, {m: 5, n: 8},
           {m: 37, n: 136}, {m: 1030, n: 4096}, {m: 1030, n: 4095}, {m: 2001, n: 2056}]
    kernel_size: [1, 3, 5, 7, 9, 11, 13, 15, 17, 21, 31]
)";
  const std::string grid = "registers, 32-row tiles", persistent = grid + ", persistent";
  ScopedEnv wide_tiles("RUNNER_CONV2D_TILES", "128x32");
  for (const char* pin : {"grid", "persistent", ""}) {
    SCOPED_TRACE(std::string("RUNNER_CONV2D_FORM=") + pin);
    ScopedEnv env("RUNNER_CONV2D_FORM", pin);
    run_verified(yaml, [&](const Point& p, const Record& r) {
      const bool both = *p.kernel_size <= 9;
      const std::string path = r.value("path", ""), message = r.value("message", "");
      if (!both) {
        EXPECT_EQ(path, grid) << p.key();
        EXPECT_EQ(message, "") << p.key();
      } else if (*pin) {
        EXPECT_EQ(path, std::string(pin) == "grid" ? grid : persistent) << p.key();
        EXPECT_EQ(message, "") << p.key();
      } else {
        expect_fastest_timed(p, r, {grid, persistent});
      }
    });
  }
}

// The narrow tile shapes (32 × 128 for images a few tens of columns wide, 256 × 16 for images a
// few rows tall), to ks = 9 (wider filters keep the 128 × 32 tiles): every n mod 4
// (an instance each), widths and heights that are not multiples of the tile, tiles inside and on
// the border, both forms; pinned by RUNNER_CONV2D_TILES, then timed beside the 128 × 32 tiles
// where a narrow shape computes at most 90 % of their pixels, and not offered elsewhere.
TEST_F(CudaVariants, Conv2dSharedRegNarrowTiles) {
  if (!cuda_variants_of("conv2d").count("shared_reg")) GTEST_SKIP() << "shared_reg not built";
  const std::string yaml = std::string("experiment: t\nkernel: conv2d\n") + kRepeat + R"(
sweeps:
  - variant: shared_reg
    size: [{m: 3000, n: 32}, {m: 2999, n: 33}, {m: 1001, n: 62}, {m: 517, n: 31}, {m: 40, n: 29},
           {m: 16, n: 4096}, {m: 13, n: 3001}, {m: 15, n: 1026}, {m: 47, n: 2047}, {m: 2, n: 700},
           {m: 300, n: 96}, {m: 600, n: 600}, {m: 2000, n: 47}, {m: 701, n: 100}]
    kernel_size: [1, 3, 5, 7, 9, 11]
)";
  const std::string wide = "registers, 32-row tiles";
  // pin name → path, tile width, tile height
  const std::map<std::string, std::tuple<std::string, int, int>> narrow = {
      {"32x128", {"registers, 32-column tiles", 32, 128}},
      {"256x16", {"registers, 16-row tiles", 256, 16}}};
  // The narrow shapes the image times beside the 128 × 32 tiles (computed pixels: tiles × tile
  // area, at most 90 % of theirs).
  const auto narrow_for = [&](const Point& p) {
    const std::int64_t m = p.size->m, n = p.size->n, shift = n % 4 ? 3 : 0;
    const auto pixels = [&](std::int64_t w, std::int64_t h) {
      return (n + shift + w - 1) / w * w * ((m + h - 1) / h * h);
    };
    std::set<std::string> paths;
    for (const auto& [pin, shape] : narrow) {
      const auto& [path, w, h] = shape;
      if (static_cast<double>(pixels(w, h)) <= 0.9 * static_cast<double>(pixels(128, 32)))
        paths.insert(path);
    }
    return paths;
  };
  int narrow_timed = 0;
  for (const char* tiles : {"32x128", "256x16", ""}) {
    for (const char* form : {"grid", "persistent"}) {
      if (!*tiles && std::string(form) == "grid") continue;  // unpinned: one pass, both forms
      SCOPED_TRACE(std::string("RUNNER_CONV2D_TILES=") + tiles +
                   " RUNNER_CONV2D_FORM=" + (*tiles ? form : ""));
      ScopedEnv pin_tiles("RUNNER_CONV2D_TILES", tiles);
      ScopedEnv pin_form("RUNNER_CONV2D_FORM", *tiles ? form : "");
      run_verified(yaml, [&](const Point& p, const Record& r) {
        const std::string path = r.value("path", "");
        if (*p.kernel_size > 9) {
          EXPECT_EQ(path, wide) << p.key();
          return;
        }
        if (*tiles) {
          const std::string shape = std::get<0>(narrow.at(tiles));
          EXPECT_EQ(path, std::string(form) == "grid" ? shape : shape + ", persistent") << p.key();
          return;
        }
        std::set<std::string> expected{wide, wide + ", persistent"};
        for (const std::string& shape : narrow_for(p))
          expected.insert({shape, shape + ", persistent"}), ++narrow_timed;
        expect_fastest_timed(p, r, expected);
      });
    }
  }
  EXPECT_GE(narrow_timed, 30);  // most of these images offer a narrow shape
}

// A pin (RUNNER_CONV2D_TILES, RUNNER_CONV2D_FORM) to a value shared_reg does not know makes its
// points invalid, with the reason; the other pin unset.
TEST_F(CudaVariants, Conv2dPinnedToNothingKnownIsInvalid) {
  if (!cuda_variants_of("conv2d").count("shared_reg")) GTEST_SKIP() << "shared_reg not built";
  const std::string yaml = std::string("experiment: t\nkernel: conv2d\n") + kRepeat +
                           "sweeps:\n  - {variant: shared_reg, size: 64}\n";
  expect_pin_invalid(yaml, "RUNNER_CONV2D_TILES", "64x64", ": 128x32, 32x128 or 256x16");
  expect_pin_invalid(yaml, "RUNNER_CONV2D_FORM", "fastest", ": grid or persistent");
}

TEST_F(CudaVariants, HelloEveryThreadReportsOnce) {
  run_all(std::string("experiment: t\nkernel: hello\n") + kRepeat + R"(
sweeps:
  - variant: hello
    grid: [1, 3, 132]
    block: [[8, 4], [32, 32], [7, 3]]
)");
}

TEST_F(CudaVariants, ImpossibleBlockShapesAreInvalidNotCrashes) {
  run_all(std::string("experiment: t\nkernel: transpose\n") + kRepeat + R"(
sweeps:
  - variant: [naive_row, smem_pad]
    size: 64
    block: [[64, 32], [2048, 1]]
)",
          "invalid");
}

}  // namespace
}  // namespace runner
