// Ranges of axis values ({pow2: [lo, hi]}, {range: [start, stop, step]}, runner/spec/
// integer_range.hpp): each stands for the integers it expands to, alone or as an item of a list,
// in sweeps and in excludes; the matrix is the one the values written out would give.
#include <gtest/gtest.h>

#include "runner/spec/config.hpp"
#include "runner/spec/matrix.hpp"
#include "tests/unit/fake_kernels.hpp"

namespace runner {
namespace {

using testing::parse;

#define HEAD "experiment: e\nkernel: gemm\n"

// The values of `axis` in the first sweep, as the point key spells them.
std::vector<std::string> values_of(const ExperimentSpec& spec, Axis axis) {
  std::vector<std::string> out;
  for (const auto& [a, values] : spec.sweeps.at(0).axes)
    if (a == axis)
      for (const auto& v : values) out.push_back(to_string(v.value));
  return out;
}

using Strings = std::vector<std::string>;

TEST(ConfigRange, Pow2IsEveryDoublingFromLoToHi) {
  const auto spec = parse(HEAD "sweeps:\n  - size: {pow2: [128, 1024]}\n");
  EXPECT_EQ(values_of(spec, Axis::size),
            (Strings{"128x128x128", "256x256x256", "512x512x512", "1024x1024x1024"}));
}

TEST(ConfigRange, Pow2WithEqualBoundsIsOneValue) {
  EXPECT_EQ(values_of(parse(HEAD "sweeps:\n  - threads: {pow2: [4, 4]}\n"), Axis::threads),
            (Strings{"4"}));
}

TEST(ConfigRange, RangeIncludesItsStop) {
  EXPECT_EQ(values_of(parse(HEAD "sweeps:\n  - grid: {range: [1024, 4096, 1024]}\n"), Axis::grid),
            (Strings{"1024", "2048", "3072", "4096"}));
}

TEST(ConfigRange, RangeStepDefaultsToOne) {
  EXPECT_EQ(values_of(parse(HEAD "sweeps:\n  - grid: {range: [0, 3]}\n"), Axis::grid),
            (Strings{"0", "1", "2", "3"}));
}

TEST(ConfigRange, KernelSizeTakesAnOddRange) {
  EXPECT_EQ(
      values_of(parse(HEAD "sweeps:\n  - kernel_size: {range: [3, 9, 2]}\n"), Axis::kernel_size),
      (Strings{"3", "5", "7", "9"}));
}

TEST(ConfigRange, RangesAreItemsOfAListNextToValues) {
  const auto spec =
      parse(HEAD "sweeps:\n  - threads: [3, {pow2: [1, 4]}, {range: [6, 10, 2]}, 16]\n");
  EXPECT_EQ(values_of(spec, Axis::threads), (Strings{"3", "1", "2", "4", "6", "8", "10", "16"}));
}

TEST(ConfigRange, EveryValueOfARangeIsLocatedAtTheRange) {
  const auto spec = parse(HEAD "sweeps:\n  - size: [8, {pow2: [16, 32]}]\n");
  const auto& values = spec.sweeps.at(0).axes.at(0).second;
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[0].where.column, 12);
  EXPECT_EQ(values[1].where.column, 15);
  EXPECT_EQ(values[2].where.column, 15);
  EXPECT_EQ(values[2].where.line, 4);
}

TEST(ConfigRange, ASizeMappingIsStillOneSize) {
  EXPECT_EQ(values_of(parse(HEAD "sweeps:\n  - size: [{m: 4, n: 8, k: 2}, {pow2: [2, 4]}]\n"),
                      Axis::size),
            (Strings{"4x8x2", "2x2x2", "4x4x4"}));
}

TEST(ConfigRange, GivesTheMatrixOfItsValuesWrittenOut) {
  const auto ranged = expand(parse(HEAD R"(baseline: omp_serial
sweeps:
  - {variant: omp_blocked, size: {pow2: [64, 256]}, threads: {range: [1, 3]}}
exclude:
  - {size: {range: [256, 256]}, threads: [{pow2: [2, 2]}]}
)"),
                             testing::fake_registry());
  const auto written = expand(parse(HEAD R"(baseline: omp_serial
sweeps:
  - {variant: omp_blocked, size: [64, 128, 256], threads: [1, 2, 3]}
exclude:
  - {size: 256, threads: 2}
)"),
                              testing::fake_registry());
  ASSERT_EQ(ranged.size(), written.size());
  ASSERT_EQ(ranged.size(), 3u * 3u - 1u + 3u);  // less one excluded, plus a baseline per size
  for (std::size_t i = 0; i < ranged.size(); ++i) EXPECT_EQ(ranged[i].key(), written[i].key());
}

}  // namespace
}  // namespace runner
