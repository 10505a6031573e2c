// Resource limits: a run under `ulimit -v`, a huge OMP_NUM_THREADS or few file descriptors ends
// in bounded time with clear outcomes: points that cannot get their memory are skipped at once
// with "out of memory: needs ...", never a hang or a crash.
#include <gtest/gtest.h>

#include "tests/hostile/hostile.hpp"

namespace runner::hostile {
namespace {

using namespace cli_testing;

// Small points that fit anywhere, an OpenBLAS point whose two threads need 0.3 GB of address
// space, and an 8192² transpose whose input, output and double reference (about 1.6 GB) do not
// fit under the tighter limits.
const char* const kSmallAndLarge = R"(experiment: limits
repeat: {warmup: 0, min_samples: 1, max_samples: 1}
sweeps:
  - {kernel: gemm, variant: omp_naive, threads: 1, size: [16, 32]}
  - {kernel: gemm, variant: openblas, threads: 2, size: 16}
  - {kernel: transpose, variant: omp_serial, size: [64, 1025, 8192]}
)";

class VirtualMemoryLimit : public ::testing::TestWithParam<int> {};

TEST_P(VirtualMemoryLimit, EndsInBoundedTimeSkippingWhatDoesNotFit) {
  const int kib = GetParam();
  TempDir dir;
  const auto config = dir / "config.yaml";
  write_text(config, kSmallAndLarge);
  const auto plan = plan_of(config);
  const auto out = dir / "out";
  // A build's shared libraries need their own address space before main runs (a CUDA build maps
  // libcublasLt, 0.5 GB): under a smaller limit the dynamic loader refuses to start the binary,
  // before any of the runner's code could say anything. Other limits must not hang even here.
  const ProcessResult loads =
      run_process(under_shell_limit("-v " + std::to_string(kib), {"--version"}), 30);
  ASSERT_FALSE(loads.timed_out) << "`runner --version` hung under ulimit -v " << kib;
  if (loads.exit_code != 0 &&
      loads.err.find("error while loading shared libraries") != std::string::npos) {
    GTEST_SKIP() << "this build cannot be loaded under ulimit -v " << kib << ": " << loads.err;
  }
  ASSERT_EQ(loads.exit_code, 0) << loads.err;
  const ProcessResult r =
      run_process(under_shell_limit("-v " + std::to_string(kib),
                                    {config.string(), "--out", out.string(), "-q"}),
                  90);
  ASSERT_FALSE(r.timed_out) << "hung under ulimit -v " << kib << ": " << r.err;
  // Whatever did not fit was skipped with its need; nothing failed, nothing hung.
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto records = records_in(out / "records.jsonl");
  EXPECT_EQ(ids_of(records), plan);
  std::size_t ok = 0, skipped = 0;
  for (const auto& rec : records) {
    const std::string status = rec["status"];
    if (status == "ok") ++ok;
    if (status == "skipped") {
      ++skipped;
      EXPECT_TRUE(rec["message"].get<std::string>().starts_with("out of memory: ")) << rec.dump();
    }
    EXPECT_TRUE(status == "ok" || status == "skipped") << rec.dump();
  }
  std::printf("ulimit -v %d: %zu ok, %zu skipped as out of memory, %.1f s\n", kib, ok, skipped,
              r.seconds);
  if (kib <= 1000000) {
    EXPECT_GE(skipped, 1u) << "the 8192^2 transpose cannot fit in " << kib << " KiB";
  }
  if (kib >= 4000000) {
    EXPECT_EQ(skipped, 0u);
  }
  EXPECT_GE(ok, 1u) << "small points must still run under ulimit -v " << kib;
}

INSTANTIATE_TEST_SUITE_P(Hostile, VirtualMemoryLimit,
                         ::testing::Values(300000, 400000, 600000, 800000, 1000000, 2000000,
                                           4000000),
                         [](const auto& p) { return "KiB" + std::to_string(p.param); });

TEST(Limits, AVirtualMemoryLimitTooSmallForTheRunnerFailsClearly) {
  // So little address space that even the worker or its OpenBLAS cannot start: a clear error or
  // skipped points, never a hang.
  TempDir dir;
  write_text(dir / "config.yaml", kQuick);
  const ProcessResult r = run_process(
      under_shell_limit("-v 120000",
                        {(dir / "config.yaml").string(), "--out", (dir / "out").string(), "-q"}),
      60);
  ASSERT_FALSE(r.timed_out) << r.err;
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 3 || r.exit_code == 127) << r.exit_code << r.err;
  if (r.exit_code == 0) {
    for (const auto& rec : records_in(dir / "out" / "records.jsonl"))
      EXPECT_TRUE(rec["status"] == "ok" ||
                  rec["message"].get<std::string>().starts_with("out of memory: "))
          << rec.dump();
  }
}

class AbsurdOmpNumThreads : public ::testing::TestWithParam<std::string> {};

TEST_P(AbsurdOmpNumThreads, IsReplacedWithAWarningAndTheRunSucceeds) {
  TempDir dir;
  write_text(dir / "config.yaml", R"(experiment: omp
kernel: gemm
repeat: {warmup: 0, min_samples: 1, max_samples: 1}
sweeps:
  - {variant: [omp_serial, omp_naive], size: [16, 64]}
)");
  const auto plan = plan_of(dir / "config.yaml");
  const ProcessResult r =
      run({(dir / "config.yaml").string(), "--out", (dir / "out").string(), "-q"}, 60,
          {.env = {{"OMP_NUM_THREADS", GetParam()}}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("OMP_NUM_THREADS=" + GetParam() + " is not a thread count from 1 to 4096"),
            std::string::npos)
      << r.err;
  expect_complete(dir / "out", plan);
}

INSTANTIATE_TEST_SUITE_P(Hostile, AbsurdOmpNumThreads,
                         ::testing::Values("100000", "5000", "0", "-1", "abc", "4,100000", "",
                                           "99999999999999999999"),
                         [](const auto& p) {
                           std::string name = "value_";
                           for (char c : p.param) name += std::isalnum(c) ? c : '_';
                           return name;
                         });

TEST(Limits, ASaneOmpNumThreadsIsLeftAloneAndRecordedAsUsed) {
  TempDir dir;
  write_text(dir / "config.yaml", kQuick);
  const ProcessResult r =
      run({(dir / "config.yaml").string(), "--out", (dir / "out").string(), "-q"}, 60,
          {.env = {{"OMP_NUM_THREADS", "3,2"}}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("OMP_NUM_THREADS"), std::string::npos) << r.err;
}

TEST(Limits, FewFileDescriptorsEndClearly) {
  TempDir dir;
  write_text(dir / "config.yaml", kQuick);
  const auto plan = plan_of(dir / "config.yaml");
  const ProcessResult r = run_process(
      under_shell_limit("-n 32",
                        {(dir / "config.yaml").string(), "--out", (dir / "out").string(), "-q"}),
      60);
  ASSERT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_complete(dir / "out", plan);
}

}  // namespace
}  // namespace runner::hostile
