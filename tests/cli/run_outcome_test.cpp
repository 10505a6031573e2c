// Exit codes and statuses of whole runs: a failed point (exit 1: a timeout, a crash), a point too
// large for the host (skipped, exit 0), and --resume against a changed config (refused unless
// --force-mix).
#include <gtest/gtest.h>

#include "tests/cli/child_process.hpp"
#include "tests/cli/results_dir.hpp"
#include "tests/unit/temp_dir.hpp"

namespace runner::cli_testing {
namespace {

using runner::testing::TempDir;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kBuiltWithAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kBuiltWithAsan = true;
#else
constexpr bool kBuiltWithAsan = false;
#endif
#else
constexpr bool kBuiltWithAsan = false;
#endif

TEST(RunOutcome, APointPastItsTimeoutFailsTheRunWithExitCode1) {
  // 1000 samples of a 256³ serial gemm take far more than the 1 s the config allows; the next
  // point is quick and must still run. --no-calibrate: the wall-time bound is about the timeout,
  // and a calibration of this machine's CPU (the shared test cache's one measured again once the
  // machine is quiet, 10-20 s on a loaded 2-core machine) would be counted in it.
  TempDir dir;
  write_text(dir / "config.yaml", R"(experiment: times_out
kernel: gemm
timeout_s: 1
repeat: {warmup: 1, min_samples: 1000, max_samples: 1000, max_seconds: 600}
sweeps:
  - {variant: omp_serial, size: 256}
  - {variant: omp_serial, size: 8}
)");
  const ProcessResult r = run_runner(
      {(dir / "config.yaml").string(), "--out", (dir / "out").string(), "-q", "--no-calibrate"},
      60);
  EXPECT_LT(r.seconds, 20.0) << "timeout_s was not enforced";
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const CsvTable csv = parse_csv(read_text(dir / "out" / "records.csv"));
  ASSERT_EQ(csv.rows.size(), 2u);
  EXPECT_EQ(csv.at(0, "m"), "256");
  EXPECT_EQ(csv.at(0, "status"), "failed");
  EXPECT_NE(csv.at(0, "message").find("timed out after 1 s"), std::string::npos)
      << csv.at(0, "message");
  EXPECT_EQ(csv.at(1, "status"), "ok");
  EXPECT_EQ(read_json(dir / "out" / "manifest.json")["state"], "complete");
  EXPECT_NE(r.out.find("1 failed"), std::string::npos) << r.out;
}

TEST(RunOutcome, APointThatCrashesFailsAloneAndTheRunExitsWith1) {
  // The test-only fault kernel (bin/runner-test, RUNNER_FAULT_INJECTION=1): a segfault and an
  // abort cost their own points; the points after them still run in a fresh worker.
  TempDir dir;
  write_text(dir / "config.yaml", R"(experiment: crashes
kernel: fault
repeat: {warmup: 0, min_samples: 1, max_samples: 1}
sweeps:
  - variant: [host_segfault, host_ok, host_abort, host_ok]
)");
  const ProcessResult r =
      run_runner({(dir / "config.yaml").string(), "--out", (dir / "out").string(), "-q"}, 60,
                 {.env = {{"RUNNER_FAULT_INJECTION", "1"}}});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const CsvTable csv = parse_csv(read_text(dir / "out" / "records.csv"));
  ASSERT_EQ(csv.rows.size(), 3u);  // host_ok twice is one point
  EXPECT_EQ(csv.at(0, "variant"), "host_segfault");
  EXPECT_EQ(csv.at(0, "status"), "failed");
  // Under AddressSanitizer the segfault is reported by ASan, which then exits with code 1.
  EXPECT_NE(csv.at(0, "message").find(kBuiltWithAsan ? "exited with code 1" : "killed by SIGSEGV"),
            std::string::npos)
      << csv.at(0, "message");
  EXPECT_EQ(csv.at(1, "variant"), "host_ok");
  EXPECT_EQ(csv.at(1, "status"), "ok");
  EXPECT_EQ(csv.at(2, "variant"), "host_abort");
  EXPECT_EQ(csv.at(2, "status"), "failed");
  EXPECT_NE(csv.at(2, "message").find("SIGABRT"), std::string::npos) << csv.at(2, "message");
  EXPECT_EQ(read_json(dir / "out" / "manifest.json")["state"], "complete");
  // Without the variable the kernel does not exist: a config error, not a crash.
  const ProcessResult plain = run_runner({"validate", (dir / "config.yaml").string()});
  EXPECT_EQ(plain.exit_code, 2);
  EXPECT_NE(plain.err.find("unknown kernel 'fault'"), std::string::npos) << plain.err;
}

TEST(RunOutcome, ASizeBeyondHostMemoryIsSkippedNotAConfigError) {
  TempDir dir;
  write_text(dir / "config.yaml", R"(experiment: too_big
kernel: gemm
sweeps:
  - {variant: omp_serial, size: [1000000, 8]}
)");
  const ProcessResult validate = run_runner({"validate", (dir / "config.yaml").string()});
  EXPECT_EQ(validate.exit_code, 0) << validate.err;
  const ProcessResult r =
      run_runner({(dir / "config.yaml").string(), "--out", (dir / "out").string(), "-q"}, 60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const CsvTable csv = parse_csv(read_text(dir / "out" / "records.csv"));
  ASSERT_EQ(csv.rows.size(), 2u);
  EXPECT_EQ(csv.at(0, "m"), "1000000");
  EXPECT_EQ(csv.at(0, "status"), "skipped");
  EXPECT_TRUE(
      csv.at(0, "message").starts_with("out of memory: needs about 36000.0 GB of host memory, "))
      << csv.at(0, "message");
  EXPECT_EQ(csv.at(0, "time_ms_median"), "");
  EXPECT_EQ(csv.at(1, "status"), "ok");
  const nlohmann::json manifest = read_json(dir / "out" / "manifest.json");
  EXPECT_EQ(manifest["counts"]["skipped"], 1);
  EXPECT_EQ(manifest["counts"]["ok"], 1);
}

TEST(RunOutcome, ResumeRefusesAChangedConfigUnlessForced) {
  TempDir dir;
  const auto config = dir / "config.yaml";
  const std::string yaml =
      "experiment: resumable\nkernel: gemm\nrepeat: {warmup: 0, min_samples: 1, max_samples: 1}\n"
      "sweeps:\n  - {variant: omp_serial, size: [8, 9, 10]}\n";
  write_text(config, yaml);
  const auto out = dir / "out";
  ASSERT_EQ(run_runner({config.string(), "--out", out.string(), "-q"}).exit_code, 0);
  const std::string records = read_text(out / "records.jsonl");

  // Resuming with the same config is a no-op that succeeds.
  const ProcessResult same = run_runner({config.string(), "--out", out.string(), "--resume", "-q"});
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(read_text(out / "records.jsonl"), records);

  write_text(config, yaml + "# one more line\n");
  const ProcessResult refused =
      run_runner({config.string(), "--out", out.string(), "--resume", "-q"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("--force-mix"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find(out.string()), std::string::npos) << refused.err;
  EXPECT_EQ(read_text(out / "records.jsonl"), records) << "a refused resume touched the records";

  const ProcessResult forced =
      run_runner({config.string(), "--out", out.string(), "--resume", "--force-mix", "-q"});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(read_jsonl_strictly(out / "records.jsonl").records.size(), 3u);
  EXPECT_EQ(read_json(out / "manifest.json")["state"], "complete");
}

TEST(RunOutcome, ResumeOfAnEmptyFolderStartsAfresh) {
  TempDir dir;
  write_text(
      dir / "config.yaml",
      "experiment: fresh\nkernel: gemm\nrepeat: {warmup: 0, min_samples: 1, max_samples: 1}\n"
      "sweeps:\n  - {variant: omp_serial, size: 8}\n");
  const ProcessResult r = run_runner(
      {(dir / "config.yaml").string(), "--out", (dir / "out").string(), "--resume", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("starting afresh"), std::string::npos) << r.err;
  EXPECT_EQ(read_jsonl_strictly(dir / "out" / "records.jsonl").records.size(), 1u);
}

TEST(RunOutcome, DefaultOutputFolderIsUnderResultsExperiment) {
  TempDir dir;
  write_text(
      dir / "config.yaml",
      "experiment: where\nkernel: gemm\nrepeat: {warmup: 0, min_samples: 1, max_samples: 1}\n"
      "sweeps:\n  - {variant: omp_serial, size: 8}\n");
  std::filesystem::create_directories(dir / "cwd");
  const ProcessResult r =
      run_runner({(dir / "config.yaml").string(), "-q"}, 30, {.cwd = dir / "cwd"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(std::filesystem::is_directory(dir / "cwd" / "results" / "where"));
  std::size_t runs = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "cwd" / "results" / "where")) {
    ++runs;
    EXPECT_TRUE(std::filesystem::exists(e.path() / "records.csv"));
    EXPECT_TRUE(std::filesystem::exists(e.path() / "manifest.json"));
    EXPECT_NE(r.out.find("Results: results/where/" + e.path().filename().string()),
              std::string::npos)
        << r.out;
  }
  EXPECT_EQ(runs, 1u);
}

}  // namespace
}  // namespace runner::cli_testing
