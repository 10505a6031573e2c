// shard() / shard_assignment(): deterministic, complete, disjoint, balanced by estimated cost.
#include <algorithm>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "runner/spec/matrix.hpp"
#include "tests/unit/fake_kernels.hpp"

namespace runner {
namespace {

using testing::fake_registry;
using testing::parse;

std::vector<Point> many_points() {
  return expand(parse(R"(experiment: e
kernel: gemm
baseline: omp_serial
sweeps:
  - {variant: omp_blocked, size: [8, 16, 32, 64, 128, 256], dtype: [float, double], threads: [1, 2, 4, 8]}
  - {variant: cuda_tiled, size: [64, 512], block: [[8, 8], [16, 16], [32, 8]]}
)"),
                fake_registry());
}

TEST(Shard, EveryPointInExactlyOneShard) {
  const auto points = many_points();
  // 48 omp_blocked, 6 cuda_tiled, a baseline per problem: 12 of the CPU sweep and one for
  // (float, 512), a size only the CUDA sweep has.
  ASSERT_EQ(points.size(), 48u + 6u + 12u + 1u);
  for (int count : {1, 2, 3, 7, 100}) {
    std::map<std::string, int> seen;
    std::size_t total = 0;
    for (int i = 0; i < count; ++i) {
      const auto slice = shard(points, i, count, fake_registry());
      total += slice.size();
      for (const auto& p : slice) ++seen[p.id()];
    }
    EXPECT_EQ(total, points.size()) << count << " shards";
    EXPECT_EQ(seen.size(), points.size()) << count << " shards";
    for (const auto& [id, n] : seen) EXPECT_EQ(n, 1) << id;
  }
}

TEST(Shard, OneShardIsTheWholeMatrixInOrder) {
  const auto points = many_points();
  const auto slice = shard(points, 0, 1, fake_registry());
  ASSERT_EQ(slice.size(), points.size());
  for (std::size_t i = 0; i < points.size(); ++i) EXPECT_EQ(slice[i].key(), points[i].key());
}

TEST(Shard, Deterministic) {
  const auto points = many_points();
  EXPECT_EQ(shard_assignment(points, 5, fake_registry()),
            shard_assignment(points, 5, fake_registry()));
  // Another expansion of the same config gives the same assignment (ties are broken by id, not by
  // memory addresses or hash seeds).
  EXPECT_EQ(shard_assignment(many_points(), 5, fake_registry()),
            shard_assignment(points, 5, fake_registry()));
}

TEST(Shard, KeepsExecutionOrderWithinASlice) {
  const auto points = many_points();
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < points.size(); ++i) position[points[i].key()] = i;
  for (int i = 0; i < 4; ++i) {
    const auto slice = shard(points, i, 4, fake_registry());
    for (std::size_t j = 1; j < slice.size(); ++j)
      EXPECT_LT(position[slice[j - 1].key()], position[slice[j].key()]);
  }
}

TEST(Shard, AHugePointSitsAlone) {
  const auto points = expand(parse(R"(experiment: e
kernel: gemm
sweeps:
  - {variant: omp_serial, size: 4096}
  - {variant: omp_blocked, size: [8, 12, 16, 20, 24, 28, 32, 36, 40, 44], threads: [1, 2, 4]}
)"),
                             fake_registry());
  ASSERT_EQ(points.size(), 31u);
  EXPECT_GT(estimated_cost(points[0], fake_registry()),
            30 * estimated_cost(points[1], fake_registry()));
  const auto assignment = shard_assignment(points, 4, fake_registry());
  int huge_shard = assignment[0];
  for (std::size_t i = 1; i < points.size(); ++i)
    EXPECT_NE(assignment[i], huge_shard) << points[i].key();
  const auto alone = shard(points, huge_shard, 4, fake_registry());
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone[0].key(), "gemm/omp_serial dtype=float size=4096x4096x4096");
  // The 30 small points spread over the three other shards, 10 each (equal costs per size).
  for (int i = 0; i < 4; ++i) {
    if (i != huge_shard) {
      EXPECT_EQ(shard(points, i, 4, fake_registry()).size(), 10u);
    }
  }
}

TEST(Shard, MoreShardsThanPointsLeavesSomeEmpty) {
  const auto points = expand(
      parse("experiment: e\nkernel: gemm\nsweeps:\n  - {variant: omp_serial, size: [8, 16]}\n"),
      fake_registry());
  std::size_t total = 0;
  for (int i = 0; i < 5; ++i) total += shard(points, i, 5, fake_registry()).size();
  EXPECT_EQ(total, 2u);
}

TEST(EstimatedCost, GrowsWithWorkAndShrinksWithThreads) {
  Point small{.kernel = "gemm",
              .variant = "omp_blocked",
              .size = ProblemSize{256, 256, 256},
              .dtype = Dtype::f32,
              .threads = 1};
  Point large = small;
  large.size = ProblemSize{1024, 1024, 1024};
  Point parallel = large;
  parallel.threads = 8;
  const auto& r = fake_registry();
  EXPECT_LT(estimated_cost(small, r), estimated_cost(large, r));
  EXPECT_LT(estimated_cost(parallel, r), estimated_cost(large, r));
  // 2·1024³ flop at 1e10 flop/s, ten samples, plus 0.05 s of set-up.
  EXPECT_DOUBLE_EQ(estimated_cost(large, r), 0.05 + 10.0 * 2.0 * 1024.0 * 1024.0 * 1024.0 / 1e10);
  Point unknown{.kernel = "nope", .variant = "x"};
  EXPECT_DOUBLE_EQ(estimated_cost(unknown, r), 1.0);
}

TEST(EstimatedCost, AGpuLaunchOfAFewThreadsCostsWhatItsThreadsDo) {
  // The seeds' grid sweeps: one-thread blocks on 1, 8, 64 ... blocks run seconds, not microseconds.
  Point whole{.kernel = "gemm",
              .variant = "cuda_tiled",
              .size = ProblemSize{256, 256, 256},
              .dtype = Dtype::f32,
              .block = BlockShape{1, 1}};
  Point one_thread = whole;
  one_thread.grid = 1;
  Point eight_threads = whole;
  eight_threads.grid = 8;
  Point full = whole;
  full.block = BlockShape{256, 1};
  full.grid = 4096;  // 2^20 threads: more than the GPU holds at once, the whole GPU
  const auto& r = fake_registry();
  EXPECT_GT(estimated_cost(one_thread, r), estimated_cost(eight_threads, r));
  EXPECT_GT(estimated_cost(eight_threads, r), 10 * estimated_cost(whole, r));
  EXPECT_DOUBLE_EQ(estimated_cost(full, r), estimated_cost(whole, r));
  // One thread is 2^-18 of the GPU: 2·256³ flop at 1e13 / 2^18 flop/s, ten samples.
  EXPECT_DOUBLE_EQ(estimated_cost(one_thread, r),
                   0.05 + 10.0 * 2.0 * 256.0 * 256.0 * 256.0 / (1e13 / 262144.0));
}

}  // namespace
}  // namespace runner
