// --only and --set (runner/spec/point_filter.hpp) on the made-up kernels of fake_kernels.hpp.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runner/base/errors.hpp"
#include "runner/spec/matrix.hpp"
#include "runner/spec/point_filter.hpp"
#include "tests/unit/fake_kernels.hpp"

namespace runner {
namespace {

using testing::fake_registry;
using testing::parse;

const char* const kConfig = R"(experiment: e
kernel: gemm
baseline: omp_serial
sweeps:
  - {variant: omp_blocked, size: [8, 16, 32], threads: [1, 2, 4], dtype: [float, double]}
  - {variant: cuda_tiled, size: [8, 16], block: [[16, 16], [32, 8]]}
exclude:
  - {variant: omp_blocked, threads: 4, size: 32}
)";

std::vector<std::string> keys(const std::vector<Point>& points) {
  std::vector<std::string> out;
  for (const auto& p : points) out.push_back(p.key() + (p.is_baseline ? " [baseline]" : ""));
  return out;
}

std::vector<std::string> select(const PointSelection& s, const char* config = kConfig) {
  return keys(selected_points(parse(config), s, fake_registry()));
}

std::string refusal(const PointSelection& s) {
  try {
    select(s);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(PointFilter, NoSelectionIsTheWholeMatrix) {
  EXPECT_EQ(select({}), keys(expand(parse(kConfig), fake_registry())));
}

TEST(PointFilter, OnlyKeepsMatchingPointsAndTheirBaselines) {
  EXPECT_EQ(select({.only = {"size=16", "threads=2", "dtype=double"}}),
            (std::vector<std::string>{
                "gemm/omp_serial dtype=double size=16x16x16 [baseline]",
                "gemm/omp_blocked dtype=double size=16x16x16 threads=2",
            }));
  // A point without the axis does not have the value: CUDA points are left out by threads=2.
  for (const auto& k : select({.only = {"threads=2"}}))
    EXPECT_TRUE(k.find("threads=2") != std::string::npos || k.ends_with("[baseline]")) << k;
}

TEST(PointFilter, OnlyTakesTheConfigsValueSyntax) {
  const auto a = select({.only = {"size=[8,16]", "variant=cuda_tiled"}});
  const auto b = select({.only = {"size=8,16", "variant=[cuda_tiled]"}});
  const auto c = select({.only = {"size={pow2: [8, 16]}", "variant=cuda_tiled"}});
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  EXPECT_EQ(a.size(), 4u + 2u);  // 2 sizes × 2 blocks, and each size's baseline
  EXPECT_EQ(select({.only = {"block=[32, 8]"}}).size(), 2u + 2u);  // one block: a value
}

TEST(PointFilter, SetGivesAnAxisOneValueEverywhere) {
  const auto points = selected_points(parse(kConfig), {.set = {"threads=2"}}, fake_registry());
  for (const auto& p : points) {
    if (p.threads) {
      EXPECT_EQ(*p.threads, 2) << p.key();
    }
  }
  // 3 sizes × 2 dtypes of omp_blocked at 2 threads, the exclude of threads 4 dropped with them.
  EXPECT_EQ(std::count_if(points.begin(), points.end(),
                          [](const Point& p) { return p.variant == "omp_blocked"; }),
            6);
  // The default too: a sweep that does not list the axis takes it.
  const auto doubles = selected_points(parse(kConfig), {.set = {"dtype=double"}}, fake_registry());
  for (const auto& p : doubles) EXPECT_EQ(to_string(AxisValue(*p.dtype)), "double") << p.key();
}

TEST(PointFilter, MistakesNameTheOption) {
  EXPECT_EQ(
      refusal({.only = {"siz=8"}}),
      "--only siz=8: no axis 'siz'; did you mean 'size'? (axes: kernel, variant, size, dtype, "
      "block, threads, kernel_size, grid, print)");
  EXPECT_NE(refusal({.only = {"size=eight"}}).find("--only size=eight: "), std::string::npos);
  EXPECT_NE(refusal({.only = {"size"}}).find("expected AXIS=VALUES"), std::string::npos);
  EXPECT_NE(refusal({.only = {"size=12"}}).find("--only size=12: no point of the config has it"),
            std::string::npos);
  EXPECT_NE(refusal({.only = {"size=32", "variant=cuda_tiled"}})
                .find("no point of the config has "
                      "all of these"),
            std::string::npos);
  EXPECT_NE(refusal({.set = {"threads=[1,2]"}}).find("--set threads=[1,2]: one value"),
            std::string::npos);
}

TEST(PointFilter, TheManifestFormRoundTrips) {
  const PointSelection s{.only = {"size=[8,16]"}, .set = {"threads=2"}};
  EXPECT_EQ(PointSelection::from_json(s.to_json()), s);
  EXPECT_EQ(s.arguments(),
            (std::vector<std::string>{"--only", "size=[8,16]", "--set", "threads=2"}));
  EXPECT_TRUE(PointSelection::from_json(nullptr).empty());
}

}  // namespace
}  // namespace runner
