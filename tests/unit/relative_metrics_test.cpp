// speedup, efficiency and pct_of_<ceiling>: computed from other records of the same run only.
#include <gtest/gtest.h>

#include "runner/api/launch_waves.hpp"
#include "runner/results/relative_metrics.hpp"
#include "tests/unit/fake_kernels.hpp"

namespace runner {
namespace {

using testing::fake_registry;

Record record(const std::string& kernel, const std::string& variant, const std::string& backend,
              double median_ms, std::optional<int> threads = std::nullopt, bool baseline = false) {
  Record r;
  r["kernel"] = kernel;
  r["variant"] = variant;
  r["backend"] = backend;
  r["dtype"] = "float";
  r["m"] = 64;
  r["n"] = 64;
  r["k"] = kernel == "gemm" ? nlohmann::ordered_json(64) : nlohmann::ordered_json(nullptr);
  r["threads"] = threads ? nlohmann::ordered_json(*threads) : nlohmann::ordered_json(nullptr);
  r["status"] = "ok";
  r["time_ms_median"] = median_ms;
  r["speedup"] = nullptr;
  r["efficiency"] = nullptr;
  r["is_baseline"] = baseline;
  return r;
}

TEST(RelativeMetrics, SpeedupIsBaselineMedianOverMedian) {
  std::vector<Record> records = {record("gemm", "omp_serial", "cpu", 10.0, std::nullopt, true),
                                 record("gemm", "omp_blocked", "cpu", 2.0, 4),
                                 record("gemm", "cuda_tiled", "cuda", 0.5)};
  apply_relative_metrics(records, fake_registry());
  EXPECT_DOUBLE_EQ(records[0]["speedup"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(records[1]["speedup"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(records[2]["speedup"].get<double>(), 20.0);
}

TEST(RelativeMetrics, EfficiencyIsSpeedupPerThreadForCpuPoints) {
  std::vector<Record> records = {record("gemm", "omp_serial", "cpu", 10.0, std::nullopt, true),
                                 record("gemm", "omp_blocked", "cpu", 2.0, 4),
                                 record("gemm", "cuda_tiled", "cuda", 0.5)};
  apply_relative_metrics(records, fake_registry());
  EXPECT_TRUE(records[0]["efficiency"].is_null());  // no thread count
  EXPECT_DOUBLE_EQ(records[1]["efficiency"].get<double>(), 1.25);
  EXPECT_TRUE(records[2]["efficiency"].is_null());  // a GPU point without its launch: none
}

// Strong scaling, as HPC papers plot it: a variant against its own time at one thread, not
// against another algorithm (the baseline): 100 % at one thread.
TEST(RelativeMetrics, ScalingEfficiencyIsTheVariantsOwnTimeAtOneThread) {
  auto keyed = [](Record r) {
    r["point_key"] = "gemm/" + r["variant"].get<std::string>() + " dtype=float size=64x64x64" +
                     (r["threads"].is_null() ? "" : " threads=" + r["threads"].dump());
    return r;
  };
  std::vector<Record> records = {
      keyed(record("gemm", "omp_serial", "cpu", 10.0, std::nullopt, true)),
      keyed(record("gemm", "omp_blocked", "cpu", 4.0, 1)),
      keyed(record("gemm", "omp_blocked", "cpu", 2.5, 2)),
      keyed(record("gemm", "omp_blocked", "cpu", 1.6, 4)),
      keyed(record("gemm", "omp_naive", "cpu", 3.0, 2)),
      keyed(record("gemm", "cuda_tiled", "cuda", 0.5))};
  apply_relative_metrics(records, fake_registry());
  EXPECT_TRUE(records[0]["scaling_efficiency"].is_null());  // no thread count
  EXPECT_DOUBLE_EQ(records[1]["scaling_efficiency"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(records[2]["scaling_efficiency"].get<double>(), 4.0 / (2 * 2.5));
  EXPECT_DOUBLE_EQ(records[3]["scaling_efficiency"].get<double>(), 4.0 / (4 * 1.6));
  // The seeds' efficiency stays what it was: over the baseline.
  EXPECT_DOUBLE_EQ(records[1]["efficiency"].get<double>(), 10.0 / 4.0);
  EXPECT_TRUE(records[4]["scaling_efficiency"].is_null());  // never ran at one thread
  EXPECT_TRUE(records[5]["scaling_efficiency"].is_null());  // not an OpenMP point
}

TEST(RelativeMetrics, ScalingKeyLeavesOutTheThreadCountOnly) {
  Record a, b;
  a["point_key"] = "conv2d/omp dtype=float size=64x64 kernel_size=3 threads=2";
  b["point_key"] = "conv2d/omp dtype=float size=64x64 kernel_size=3 threads=16";
  EXPECT_EQ(scaling_key(a), scaling_key(b));
  EXPECT_EQ(scaling_key(a), "conv2d/omp dtype=float size=64x64 kernel_size=3|");
  b["point_key"] = "conv2d/omp dtype=float size=64x64 kernel_size=5 threads=2";
  EXPECT_NE(scaling_key(a), scaling_key(b));
}

// Seed 003: a GPU point's efficiency is its speedup over the warps in use, the launch's warps
// capped at what the device holds at once.
TEST(RelativeMetrics, EfficiencyOfAGpuPointIsSpeedupPerWarpInUse) {
  Record few = record("gemm", "cuda_tiled", "cuda", 0.5);  // speedup 20
  few.update(launch_fields(4, 256, launch_waves(4, 256, 32, 132, 2048)));
  Record many = record("gemm", "cuda_tiled", "cuda", 0.1);  // speedup 100
  many.update(launch_fields(10000, 256, launch_waves(10000, 256, 32, 132, 2048)));
  std::vector<Record> records = {record("gemm", "omp_serial", "cpu", 10.0, std::nullopt, true), few,
                                 many};
  apply_relative_metrics(records, fake_registry());
  EXPECT_EQ(records[1]["launch_warps"], 32);  // 4 blocks x 8 warps
  EXPECT_DOUBLE_EQ(records[1]["efficiency"].get<double>(), 20.0 / 32);
  EXPECT_EQ(records[2]["launch_warps"], 80000);
  EXPECT_EQ(records[2]["resident_warps"], 8448);  // 132 SMs x 64 warps
  EXPECT_DOUBLE_EQ(records[2]["efficiency"].get<double>(), 100.0 / 8448);
}

TEST(LaunchWaves, ABlockFillsWholeWarpsAndNeverSharesOne) {
  EXPECT_EQ(launch_waves(1, 1, 32, 132, 2048).launch_warps, 1);  // seed 003's q = 1
  EXPECT_EQ(launch_waves(1024, 1, 32, 132, 2048).launch_warps, 1024);
  EXPECT_EQ(launch_waves(2, 65, 32, 132, 2048).launch_warps, 6);
  EXPECT_EQ(launch_waves(3, 128, 64, 64, 2560).launch_warps, 6);       // wavefronts of 64 (a DCU)
  EXPECT_EQ(launch_waves(3, 128, 64, 64, 2560).resident_warps, 2560);  // the seed's 64 x 40
  EXPECT_EQ(launch_waves(100000, 1024, 64, 64, 2560).occupied(), 2560);
  EXPECT_EQ(launch_waves(0, 256, 32, 132, 2048).launch_warps, 0);  // unknown launch
  EXPECT_EQ(launch_waves(4, 256, 0, 0, 0).occupied(), 0);          // no device
}

TEST(RelativeMetrics, NoBaselineNoSpeedup) {
  std::vector<Record> records = {record("gemm", "omp_blocked", "cpu", 2.0, 4),
                                 record("gemm", "omp_blocked", "cpu", 1.0, 8)};
  apply_relative_metrics(records, fake_registry());
  for (const auto& r : records) {
    EXPECT_TRUE(r["speedup"].is_null());
    EXPECT_TRUE(r["efficiency"].is_null());
  }
}

TEST(RelativeMetrics, BaselineOfAnotherProblemDoesNotCount) {
  Record base = record("gemm", "omp_serial", "cpu", 10.0, std::nullopt, true);
  base["m"] = 128;
  std::vector<Record> records = {base, record("gemm", "omp_blocked", "cpu", 2.0, 4)};
  apply_relative_metrics(records, fake_registry());
  EXPECT_TRUE(records[1]["speedup"].is_null());
}

TEST(RelativeMetrics, AFailedBaselineGivesNoSpeedupAndFailedPointsGetNone) {
  Record base = record("gemm", "omp_serial", "cpu", 10.0, std::nullopt, true);
  base["status"] = "failed";
  Record failed = record("gemm", "omp_blocked", "cpu", 2.0, 2);
  failed["status"] = "failed";
  std::vector<Record> records = {base, record("gemm", "omp_blocked", "cpu", 2.0, 4), failed};
  apply_relative_metrics(records, fake_registry());
  EXPECT_TRUE(records[1]["speedup"].is_null());

  std::vector<Record> with_base = {record("gemm", "omp_serial", "cpu", 10.0, std::nullopt, true),
                                   failed};
  apply_relative_metrics(with_base, fake_registry());
  EXPECT_TRUE(with_base[1]["speedup"].is_null());
}

TEST(RelativeMetrics, PctOfCopyForTransposes) {
  Record copy = record("transpose", "copy", "cuda", 1.0);
  copy["gbps"] = 800.0;
  Record naive = record("transpose", "naive", "cuda", 4.0);
  naive["gbps"] = 200.0;
  Record cpu = record("transpose", "omp_tiled", "cpu", 8.0, 2);
  cpu["gbps"] = 100.0;
  std::vector<Record> records = {copy, naive, cpu};
  apply_relative_metrics(records, fake_registry());
  EXPECT_DOUBLE_EQ(records[0]["pct_of_copy"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(records[1]["pct_of_copy"].get<double>(), 25.0);
  // The ceiling is per backend: there is no CPU copy in this set.
  EXPECT_FALSE(records[2].contains("pct_of_copy"));
  // gemm has no ceiling variant: never a pct_of_ column.
  std::vector<Record> gemm = {record("gemm", "cuda_tiled", "cuda", 1.0)};
  gemm[0]["gbps"] = 10.0;
  apply_relative_metrics(gemm, fake_registry());
  for (const auto& item : gemm[0].items()) EXPECT_FALSE(item.key().starts_with("pct_of_"));
}

TEST(RelativeMetrics, StreamingSeesOnlyWhatCameBefore) {
  // While a run streams, a point gets a speedup only if its baseline finished first — which the
  // execution order guarantees; apply_relative_metrics() fixes up merged sets in any order.
  RelativeMetrics streaming(fake_registry());
  Record point = record("gemm", "omp_blocked", "cpu", 2.0, 4);
  streaming.apply(point);
  EXPECT_TRUE(point["speedup"].is_null());
  const Record base = record("gemm", "omp_serial", "cpu", 10.0, std::nullopt, true);
  streaming.observe(base);
  streaming.apply(point);
  EXPECT_DOUBLE_EQ(point["speedup"].get<double>(), 5.0);

  std::vector<Record> merged = {record("gemm", "omp_blocked", "cpu", 2.0, 4), base};
  apply_relative_metrics(merged, fake_registry());
  EXPECT_DOUBLE_EQ(merged[0]["speedup"].get<double>(), 5.0);
}

}  // namespace
}  // namespace runner
