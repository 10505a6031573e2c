// README's "Adding a kernel variant" works as written: its example file (tests/test_kernels/
// gemm_example.cpp, compiled into bin/runner-test only) is listed by `runner list`, runs, is
// verified, and its records have every column of the table; and the README shows that file as it
// is.
#include <gtest/gtest.h>

#include "runner/results/columns.hpp"
#include "tests/cli/child_process.hpp"
#include "tests/cli/results_dir.hpp"
#include "tests/unit/temp_dir.hpp"

namespace runner::cli_testing {
namespace {

using runner::testing::TempDir;

ProcessResult run_test_binary(const std::vector<std::string>& args, double timeout_s = 60) {
  std::vector<std::string> argv = {runner_test_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, timeout_s);
}

TEST(NewVariant, TheReadmeShowsTheExampleFileVerbatim) {
  const std::string readme = read_text(source_dir() / "README.md");
  const auto begin = readme.find("<!-- example-variant:begin");
  const auto end = readme.find("<!-- example-variant:end -->");
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  std::string block = readme.substr(begin, end - begin);
  block = block.substr(block.find("```cpp\n") + 7);
  block = block.substr(0, block.rfind("```"));
  EXPECT_EQ(block, read_text(source_dir() / "tests" / "test_kernels" / "gemm_example.cpp"));
}

TEST(NewVariant, AppearsInTheListRunsAndGetsEveryColumn) {
  const ProcessResult list = run_test_binary({"list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  bool listed = false;
  for (const auto& line : lines_of(list.out))
    if (line.starts_with("gemm ") && line.find(" example_dot ") != std::string::npos) {
      listed = true;
      EXPECT_NE(line.find(" cpu "), std::string::npos) << line;
      EXPECT_NE(line.find(" yes "), std::string::npos) << line;
      EXPECT_NE(line.find("threads"), std::string::npos) << line;
      EXPECT_NE(line.find("example: one dot product per output"), std::string::npos) << line;
    }
  EXPECT_TRUE(listed) << list.out;
  // The shipped binary does not have it.
  EXPECT_EQ(run_runner({"list"}).out.find("example_dot"), std::string::npos);

  TempDir dir;
  write_text(dir / "config.yaml", R"(experiment: new_variant
kernel: gemm
repeat: {warmup: 1, min_samples: 3, max_samples: 3}
baseline: omp_serial
sweeps:
  - {variant: example_dot, size: [33, {m: 17, n: 9, k: 40}], threads: [1, 2], dtype: [float, double]}
)");
  const ProcessResult r = run_test_binary(
      {(dir / "config.yaml").string(), "--out", (dir / "out").string(), "-q", "--no-calibrate"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const CsvTable csv = parse_csv(read_text(dir / "out" / "records.csv"));
  std::vector<std::string> table;
  for (const auto& c : columns()) table.push_back(c.name);
  EXPECT_EQ(csv.header, table);
  std::size_t mine = 0;
  for (std::size_t row = 0; row < csv.rows.size(); ++row) {
    if (csv.at(row, "variant") != "example_dot") continue;
    ++mine;
    SCOPED_TRACE(csv.at(row, "point_key"));
    EXPECT_EQ(csv.at(row, "status"), "ok");
    EXPECT_EQ(csv.at(row, "verified"), "true");
    EXPECT_EQ(csv.at(row, "backend"), "cpu");
    for (const char* filled : {"point_id", "time_ms_median", "gflops", "gbps", "speedup",
                               "efficiency", "max_rel_err", "verify_tolerance", "timed_s",
                               "point_s", "omp_thread_cpus", "arith_intensity", "threads"})
      EXPECT_FALSE(csv.at(row, filled).empty()) << filled;
  }
  EXPECT_EQ(mine, 8u);
}

}  // namespace
}  // namespace runner::cli_testing
