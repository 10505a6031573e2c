// expand(): sweeps → points, on the made-up kernels of fake_kernels.hpp.
#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "runner/spec/config_error.hpp"
#include "runner/spec/matrix.hpp"
#include "tests/unit/fake_kernels.hpp"
#include "tests/unit/time_scale.hpp"

namespace runner {
namespace {

using testing::fake_registry;
using testing::parse;

std::vector<Point> expand_text(const std::string& yaml) {
  return expand(parse(yaml), fake_registry());
}

std::vector<std::string> keys_of(const std::vector<Point>& points) {
  std::vector<std::string> keys;
  for (const auto& p : points) keys.push_back(p.key() + (p.is_baseline ? " [baseline]" : ""));
  return keys;
}

std::string expand_error(const std::string& yaml) {
  try {
    expand_text(yaml);
  } catch (const ConfigError& e) {
    return e.located();
  }
  return "no error";
}

TEST(Expand, CartesianProductInExecutionOrder) {
  const auto points = expand_text(R"(experiment: e
kernel: gemm
sweeps:
  - variant: omp_blocked
    size: [8, 16]
    threads: [1, 2, 4]
    dtype: [float, double]
)");
  // 2 sizes × 3 thread counts × 2 dtypes, grouped by problem (dtype and size) in the order the
  // problems first appear, then in the order of generation.
  EXPECT_EQ(keys_of(points), (std::vector<std::string>{
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=1",
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=2",
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=4",
                                 "gemm/omp_blocked dtype=float size=16x16x16 threads=1",
                                 "gemm/omp_blocked dtype=float size=16x16x16 threads=2",
                                 "gemm/omp_blocked dtype=float size=16x16x16 threads=4",
                                 "gemm/omp_blocked dtype=double size=8x8x8 threads=1",
                                 "gemm/omp_blocked dtype=double size=8x8x8 threads=2",
                                 "gemm/omp_blocked dtype=double size=8x8x8 threads=4",
                                 "gemm/omp_blocked dtype=double size=16x16x16 threads=1",
                                 "gemm/omp_blocked dtype=double size=16x16x16 threads=2",
                                 "gemm/omp_blocked dtype=double size=16x16x16 threads=4",
                             }));
}

// A variant's point at one thread runs before its other thread counts of the problem, whatever
// order the config lists them in: the strong-scaling efficiency of each is against that point.
TEST(Expand, OneThreadPointsRunBeforeTheirOtherThreadCounts) {
  const auto points = expand_text(R"(experiment: e
kernel: gemm
sweeps:
  - {variant: omp_blocked, size: 8, threads: [4, 2, 1]}
)");
  EXPECT_EQ(keys_of(points), (std::vector<std::string>{
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=1",
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=4",
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=2",
                             }));
}

TEST(Expand, UnionOfSweepsWithoutDuplicates) {
  const auto points = expand_text(R"(experiment: e
kernel: gemm
sweeps:
  - {variant: omp_blocked, size: 8, threads: [1, 2]}
  - {variant: omp_blocked, size: 8, threads: [2, 4]}
  - {variant: omp_serial, size: 8}
)");
  EXPECT_EQ(keys_of(points), (std::vector<std::string>{
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=1",
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=2",
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=4",
                                 "gemm/omp_serial dtype=float size=8x8x8",
                             }));
}

TEST(Expand, AxesAVariantDoesNotUseAreNotExpanded) {
  const auto points = expand_text(R"(experiment: e
kernel: gemm
sweeps:
  - size: 8
    threads: [1, 2]
    block: [[16, 16], [32, 8]]
)");
  // omp_serial once (neither threads nor block), omp_blocked per thread count, CUDA variants per
  // block: 1 + 2 + 2 + 2, not 4 × 2 × 2.
  EXPECT_EQ(keys_of(points), (std::vector<std::string>{
                                 "gemm/omp_serial dtype=float size=8x8x8",
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=1",
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=2",
                                 "gemm/cuda_tiled dtype=float size=8x8x8 block=16x16",
                                 "gemm/cuda_tiled dtype=float size=8x8x8 block=32x8",
                                 "gemm/cuda_tf32 dtype=float size=8x8x8 block=16x16",
                                 "gemm/cuda_tf32 dtype=float size=8x8x8 block=32x8",
                             }));
}

TEST(Expand, DtypesAVariantLacksAreLeftOut) {
  const auto points = expand_text(R"(experiment: e
kernel: gemm
sweeps:
  - {variant: [cuda_tiled, cuda_tf32], size: 8, dtype: [float, double], block: [32, 8]}
)");
  EXPECT_EQ(keys_of(points), (std::vector<std::string>{
                                 "gemm/cuda_tiled dtype=float size=8x8x8 block=32x8",
                                 "gemm/cuda_tf32 dtype=float size=8x8x8 block=32x8",
                                 "gemm/cuda_tiled dtype=double size=8x8x8 block=32x8",
                             }));
}

TEST(Expand, DefaultsComeFromTheTopLevelThenBuiltIn) {
  const auto points = expand_text(R"(experiment: e
kernel: conv2d
threads: 3
sweeps:
  - {variant: [omp_parallel, cuda_direct], size: 8}
)");
  EXPECT_EQ(keys_of(points),
            (std::vector<std::string>{
                "conv2d/omp_parallel dtype=float size=8x8 kernel_size=3 threads=3",
                "conv2d/cuda_direct dtype=float size=8x8 kernel_size=3 block=16x16",
            }));
}

TEST(Expand, BuiltInThreadCountIsTheHardwareConcurrency) {
  const auto points =
      expand_text("experiment: e\nkernel: gemm\nsweeps:\n  - {variant: omp_blocked, size: 8}\n");
  ASSERT_EQ(points.size(), 1u);
  const unsigned hw = std::thread::hardware_concurrency();
  EXPECT_EQ(points[0].threads, hw == 0 ? 1 : static_cast<int>(hw));
}

TEST(Expand, SizesOfTwoDimensionalKernelsDropK) {
  const auto points = expand_text(R"(experiment: e
kernel: transpose
sweeps:
  - {variant: omp_serial, size: [8, {m: 4, n: 6, k: 9}]}
)");
  EXPECT_EQ(keys_of(points), (std::vector<std::string>{
                                 "transpose/omp_serial dtype=float size=8x8",
                                 "transpose/omp_serial dtype=float size=4x6",
                             }));
  EXPECT_EQ(points[1].size, (ProblemSize{4, 6, 0}));
}

TEST(Expand, SweepOverSeveralKernelsTakesTheVariantsEachHas) {
  const auto points = expand_text(R"(experiment: e
sweeps:
  - {kernel: [gemm, transpose], variant: [omp_serial, copy], size: 8, block: [32, 8]}
)");
  EXPECT_EQ(keys_of(points), (std::vector<std::string>{
                                 "gemm/omp_serial dtype=float size=8x8x8",
                                 "transpose/copy dtype=float size=8x8 block=32x8",
                                 "transpose/omp_serial dtype=float size=8x8",
                             }));
}

TEST(Expand, ExcludeRemovesMatchingPoints) {
  const auto points = expand_text(R"(experiment: e
kernel: gemm
sweeps:
  - {variant: omp_blocked, size: [8, 16], threads: [1, 2, 4]}
exclude:
  - {size: 16, threads: [2, 4]}
  - {threads: 1, size: 8}
)");
  EXPECT_EQ(keys_of(points), (std::vector<std::string>{
                                 "gemm/omp_blocked dtype=float size=16x16x16 threads=1",
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=2",
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=4",
                             }));
  // Groups follow the order in which problems first appear among the points left: size 16 first.
}

TEST(Expand, ExcludeOnAnAxisAPointLacksDoesNotMatchIt) {
  const auto points = expand_text(R"(experiment: e
kernel: gemm
sweeps:
  - {variant: [omp_serial, omp_blocked], size: 8, threads: [1, 2]}
exclude:
  - {threads: [1, 2]}
)");
  EXPECT_EQ(keys_of(points), (std::vector<std::string>{"gemm/omp_serial dtype=float size=8x8x8"}));
}

TEST(Expand, ExcludingEverythingIsAnError) {
  EXPECT_EQ(expand_error(R"(experiment: e
kernel: gemm
sweeps:
  - {variant: omp_blocked, size: 8, threads: [1, 2]}
exclude:
  - {variant: omp_blocked}
)"),
            "test.yaml:1:1: the sweeps less the excluded points leave nothing to run");
}

TEST(Expand, BaselineForEverySizeAndDtypeComesFirstInItsGroup) {
  const auto points = expand_text(R"(experiment: e
kernel: gemm
baseline: omp_serial
sweeps:
  - {variant: omp_blocked, size: [8, 16], dtype: [float, double], threads: 2}
)");
  EXPECT_EQ(keys_of(points), (std::vector<std::string>{
                                 "gemm/omp_serial dtype=float size=8x8x8 [baseline]",
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=2",
                                 "gemm/omp_serial dtype=float size=16x16x16 [baseline]",
                                 "gemm/omp_blocked dtype=float size=16x16x16 threads=2",
                                 "gemm/omp_serial dtype=double size=8x8x8 [baseline]",
                                 "gemm/omp_blocked dtype=double size=8x8x8 threads=2",
                                 "gemm/omp_serial dtype=double size=16x16x16 [baseline]",
                                 "gemm/omp_blocked dtype=double size=16x16x16 threads=2",
                             }));
}

TEST(Expand, BaselineWithAFixedThreadCount) {
  const auto points = expand_text(R"(experiment: e
kernel: gemm
baseline: {variant: omp_blocked, threads: 1}
sweeps:
  - {variant: omp_blocked, size: 8, threads: [2, 4]}
)");
  EXPECT_EQ(keys_of(points), (std::vector<std::string>{
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=1 [baseline]",
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=2",
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=4",
                             }));
}

TEST(Expand, BaselineAlreadyInTheSweepIsMarkedNotDuplicated) {
  const auto points = expand_text(R"(experiment: e
kernel: gemm
baseline: {variant: omp_blocked, threads: 1}
sweeps:
  - {variant: omp_blocked, size: 8, threads: [4, 2, 1]}
)");
  EXPECT_EQ(keys_of(points), (std::vector<std::string>{
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=1 [baseline]",
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=4",
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=2",
                             }));
}

TEST(Expand, BaselineAndCeilingLeadEachProblemGroup) {
  const auto points = expand_text(R"(experiment: e
kernel: transpose
baseline: omp_serial
sweeps:
  - {variant: [naive, omp_tiled, copy], size: [8, 16], threads: 2, block: [32, 8]}
)");
  EXPECT_EQ(keys_of(points), (std::vector<std::string>{
                                 "transpose/omp_serial dtype=float size=8x8 [baseline]",
                                 "transpose/copy dtype=float size=8x8 block=32x8",
                                 "transpose/naive dtype=float size=8x8 block=32x8",
                                 "transpose/omp_tiled dtype=float size=8x8 threads=2",
                                 "transpose/omp_serial dtype=float size=16x16 [baseline]",
                                 "transpose/copy dtype=float size=16x16 block=32x8",
                                 "transpose/naive dtype=float size=16x16 block=32x8",
                                 "transpose/omp_tiled dtype=float size=16x16 threads=2",
                             }));
}

TEST(Expand, ExcludesApplyToBaselinesToo) {
  // A slow baseline kept off the large size: the points there have no baseline (no speedup).
  const auto points = expand_text(R"(experiment: e
kernel: gemm
baseline: omp_serial
sweeps:
  - {variant: omp_blocked, size: [8, 4096], threads: 2}
exclude:
  - {variant: omp_serial, size: 4096}
)");
  EXPECT_EQ(keys_of(points), (std::vector<std::string>{
                                 "gemm/omp_serial dtype=float size=8x8x8 [baseline]",
                                 "gemm/omp_blocked dtype=float size=8x8x8 threads=2",
                                 "gemm/omp_blocked dtype=float size=4096x4096x4096 threads=2",
                             }));
}

TEST(Expand, BaselineOnlyForDtypesItSupports) {
  const auto points = expand_text(R"(experiment: e
kernel: gemm
baseline: cuda_tf32
sweeps:
  - {variant: omp_serial, size: 8, dtype: [float, double]}
)");
  EXPECT_EQ(keys_of(points), (std::vector<std::string>{
                                 "gemm/cuda_tf32 dtype=float size=8x8x8 block=16x16 [baseline]",
                                 "gemm/omp_serial dtype=float size=8x8x8",
                                 "gemm/omp_serial dtype=double size=8x8x8",
                             }));
}

TEST(Expand, PointIdsAreStableAndUnique) {
  Point p;
  p.kernel = "gemm";
  p.variant = "omp_blocked";
  p.size = ProblemSize{64, 64, 64};
  p.dtype = Dtype::f32;
  p.threads = 2;
  EXPECT_EQ(p.key(), "gemm/omp_blocked dtype=float size=64x64x64 threads=2");
  // "p" and the FNV-1a 64 of the key. If this changes, every results directory's point ids change
  // with it and --resume stops recognising finished points: change it only on purpose.
  EXPECT_EQ(p.id(), "p1348c7eab054c578");
  // Ids of earlier releases (no letter) are read as today's; anything else is left alone.
  EXPECT_EQ(normalize_point_id("1348c7eab054c578"), "p1348c7eab054c578");
  EXPECT_EQ(normalize_point_id("p1348c7eab054c578"), "p1348c7eab054c578");
  EXPECT_EQ(normalize_point_id("1348C7EAB054C578"), "1348C7EAB054C578");
  EXPECT_EQ(normalize_point_id("1348c7eab054c57"), "1348c7eab054c57");
  EXPECT_EQ(normalize_point_id(""), "");
  EXPECT_EQ(p.problem_key(), "gemm dtype=float size=64x64x64");
  // Published FNV-1a 64 test vectors: anyone can recompute an id from its key.
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ull);

  const auto points = expand_text(R"(experiment: e
kernel: gemm
baseline: omp_serial
sweeps:
  - {size: [8, 16, {m: 8, n: 16, k: 8}], dtype: [float, double], threads: [1, 2, 3], block: [[8, 8], "16x16"]}
)");
  std::set<std::string> ids;
  for (const auto& q : points) {
    EXPECT_EQ(q.id().size(), 17u);
    EXPECT_EQ(q.id()[0], 'p');  // never read as a number by a spreadsheet or pandas
    ids.insert(q.id());
  }
  EXPECT_EQ(ids.size(), points.size());
  EXPECT_EQ(points.size(), 3u * (1 + 3 + 2) + 3u * (1 + 3 + 2 + 2));  // float: tf32 too
  // The same config always gives the same points in the same order.
  const auto again = expand_text(R"(experiment: e
kernel: gemm
baseline: omp_serial
sweeps:
  - {size: [8, 16, {m: 8, n: 16, k: 8}], dtype: [float, double], threads: [1, 2, 3], block: [[8, 8], "16x16"]}
)");
  EXPECT_EQ(keys_of(again), keys_of(points));
}

TEST(Expand, AMatrixTooLargeToRunIsRefusedQuickly) {
  // 300 sizes × 300 blocks × 2 dtypes: a few kilobytes of YAML, 180000 points.
  std::string sizes, blocks;
  for (int i = 1; i <= 300; ++i) {
    sizes += (i > 1 ? ", " : "") + std::to_string(i);
    blocks += (i > 1 ? ", [" : "[") + std::to_string(i) + "]";
  }
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(
      expand_error("experiment: e\nkernel: gemm\nsweeps:\n  - variant: cuda_tiled\n    size: [" +
                   sizes + "]\n    block: [" + blocks + "]\n    dtype: [float, double]\n"),
      "test.yaml:4:5: the sweeps expand to more than 100000 points: split the experiment into "
      "several configs");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
            1.0 * testing::kTimeScale);
  // The bound counts every sweep: two sweeps of 60000 are too many together.
  const std::string half = "  - {variant: omp_blocked, size: [" +
                           sizes.substr(0, sizes.find(", 201")) + "], threads: [" +
                           sizes.substr(0, sizes.find(", 301")) + "]}\n";
  EXPECT_EQ(
      expand_error("experiment: e\nkernel: gemm\nsweeps:\n" + half + half),
      "test.yaml:5:5: the sweeps expand to more than 100000 points: split the experiment into "
      "several configs");
}

struct ExpandError {
  const char* name;
  const char* yaml;
  const char* message;
  friend void PrintTo(const ExpandError& e, std::ostream* os) { *os << e.name; }
};

const ExpandError kExpandErrors[] = {
    {"UnknownKernel", "experiment: e\nkernel: gemn\nsweeps:\n  - size: 8\n",
     "test.yaml:2:9: unknown kernel 'gemn', did you mean 'gemm'? (known: conv2d, gemm, transpose)"},
    {"UnknownKernelInSweep", "experiment: e\nsweeps:\n  - {kernel: [gemm, fft], size: 8}\n",
     "test.yaml:3:21: unknown kernel 'fft' (known: conv2d, gemm, transpose)"},
    {"UnknownVariant",
     "experiment: e\nkernel: gemm\nsweeps:\n  - {variant: [omp_serail], size: 8}\n",
     "test.yaml:4:16: unknown variant 'omp_serail' of kernel 'gemm', did you mean 'omp_serial'? "
     "(known: omp_serial, omp_blocked, cuda_tiled, cuda_tf32)"},
    {"UnknownTopLevelVariant", "experiment: e\nkernel: gemm\nvariant: blas\nsweeps:\n  - size: 8\n",
     "test.yaml:3:10: unknown variant 'blas' of kernel 'gemm'"},
    {"AxisNoVariantUses",
     "experiment: e\nkernel: gemm\nsweeps:\n  - variant: omp_serial\n    size: 8\n    block: [16, "
     "16]\n",
     "test.yaml:6:12: axis 'block' is not used by any variant of this sweep"},
    {"AxisTheKernelLacks",
     "experiment: e\nkernel: gemm\nsweeps:\n  - {size: 8, kernel_size: [3, 5]}\n",
     "test.yaml:4:29: axis 'kernel_size' is not used by any variant of this sweep"},
    {"NoKernel", "experiment: e\nsweeps:\n  - size: 8\n",
     "test.yaml:3:5: this sweep has no kernel: set 'kernel: NAME' at the top level or in the "
     "sweep"},
    {"NoSize", "experiment: e\nkernel: gemm\nsweeps:\n  - variant: omp_serial\n",
     "test.yaml:4:5: variant 'omp_serial' of 'gemm' needs a value for 'size': list it in this "
     "sweep or "
     "set it at the top level"},
    {"GemmSizeWithoutK",
     "experiment: e\nkernel: gemm\nsweeps:\n  - {variant: omp_serial, size: {m: 4, n: 4}}\n",
     "test.yaml:4:33: size of a gemm needs k: {m: 4, n: 4, k: K}"},
    {"NoDtypeSupported",
     "experiment: e\nkernel: gemm\nsweeps:\n  - {variant: cuda_tf32, size: 8, dtype: double}\n",
     "test.yaml:4:5: this sweep expands to no point (no variant supports the listed dtypes?)"},
    {"BytesOverflow",
     "experiment: e\nkernel: transpose\nsweeps:\n  - {variant: omp_serial, size: 1099511627776}\n",
     "test.yaml:4:33: size 1099511627776x1099511627776 needs 9.67e+24 bytes, beyond a 64-bit byte "
     "count"},
    {"GemmBytesOverflow",
     "experiment: e\nkernel: gemm\nsweeps:\n  - variant: omp_serial\n    size: {m: 1099511627776, "
     "n: 1099511627776, k: 1099511627776}\n",
     "test.yaml:5:11: size 1099511627776x1099511627776x1099511627776 needs 1.45e+25 bytes, beyond "
     "a 64-bit byte count"},
    {"BaselineInNoKernel", "experiment: e\nkernel: gemm\nbaseline: copy\nsweeps:\n  - size: 8\n",
     "test.yaml:3:11: baseline variant 'copy' exists in none of the kernels of this config (gemm)"},
};

class ExpandErrorTest : public ::testing::TestWithParam<ExpandError> {};

TEST_P(ExpandErrorTest, IsLocated) {
  EXPECT_EQ(expand_error(GetParam().yaml), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(Expand, ExpandErrorTest, ::testing::ValuesIn(kExpandErrors),
                         [](const auto& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace runner
