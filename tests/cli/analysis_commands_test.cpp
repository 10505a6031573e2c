// `runner report` and `runner compare` hand every word after the subcommand to analysis/*.py as
// written: option names and `--opt=value` forms reach the script's own parser, and the script's
// exit status is the command's.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "tests/cli/child_process.hpp"
#include "tests/unit/temp_dir.hpp"

namespace runner::cli_testing {
namespace {

namespace fs = std::filesystem;
using runner::testing::TempDir;

// A copy of a finished CPU run, so that a report written to the wrong place stays in the
// temporary folder (and shows up there) instead of the source tree.
fs::path copy_of_a_run(const TempDir& dir) {
  const fs::path run = dir / "run";
  fs::copy(source_dir() / "tests" / "analysis" / "fixtures" / "cpu_run", run,
           fs::copy_options::recursive);
  return run;
}

TEST(AnalysisCommands, ReportTakesItsOptionsInEitherSpellingAndPlace) {
  TempDir dir;
  const fs::path run = copy_of_a_run(dir);
  ProcessResult r = run_runner({"report", run.string(), "--out", (dir / "a").string()}, 180);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(fs::exists(dir / "a" / "report.md"));
  r = run_runner({"report", "--out=" + (dir / "b").string(), run.string()}, 180);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(fs::exists(dir / "b" / "report.md"));
  EXPECT_FALSE(fs::exists(run / "report")) << "an --out was ignored";
}

TEST(AnalysisCommands, CompareTakesOutAndFloor) {
  TempDir dir;
  const fs::path run = copy_of_a_run(dir);
  const fs::path csv = dir / "diff.csv";
  const ProcessResult r = run_runner(
      {"compare", run.string(), run.string(), "--out", csv.string(), "--floor", "0.1"}, 120);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(fs::exists(csv)) << r.out;
  EXPECT_FALSE(fs::exists(run / "compare.csv")) << "the --out was ignored";
}

// The regression gate's verdict is the command's exit status: 1 when a point is outside its
// reference bounds, 0 when every point is inside (README's exit codes).
TEST(AnalysisCommands, CompareExitsOneWhenItsGateFails) {
  TempDir dir;
  const fs::path run = copy_of_a_run(dir);
  auto references = [&](const std::string& upper) {
    const fs::path file = dir / ("refs" + upper + ".yaml");
    std::ofstream(file) << "references:\n  - point: \"gemm/*\"\n    time_ms: [1.0e-6, null, "
                        << upper << "]\n";
    return file.string();
  };
  // every gemm point takes more than 1 ns: far outside a 0 % band, inside a 10^12 one
  ProcessResult r =
      run_runner({"compare", run.string(), "--reference", references("0"), "--fail-on-noise"}, 120);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("gate: FAILED"), std::string::npos) << r.out;
  r = run_runner({"compare", run.string(), "--reference", references("1e12")}, 120);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("gate: passed"), std::string::npos) << r.out;
}

TEST(AnalysisCommands, TheScriptsOwnUsageErrorsComeThrough) {
  const ProcessResult r = run_runner({"compare", "--floor"}, 60);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("usage: runner compare"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace runner::cli_testing
