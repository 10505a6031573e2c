// `runner report` and `runner compare` on what users point them at: a regression gate that could
// compare nothing fails (exit 1) instead of passing, and a folder without readable records is a
// clear message with exit 2 (1 is README's code for a failed point or gate), never a traceback;
// corrupt lines are skipped with a warning naming them.
#include <gtest/gtest.h>

#include "tests/hostile/hostile.hpp"

namespace runner::hostile {
namespace {

using namespace cli_testing;

// A finished run of kQuick, made once for the suite: A of every comparison.
class AnalysisInput : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { run_ = new FinishedRun; }
  static void TearDownTestSuite() { delete run_; }
  static FinishedRun* run_;

  void SetUp() override {
    const ProcessResult probe =
        run_runner({"report", run_->out.string(), "--out", (dir / "probe").string()}, 120);
    if (probe.exit_code != 0 && probe.err.find("pandas") != std::string::npos)
      GTEST_SKIP() << "no Python with pandas and matplotlib: " << probe.err;
  }
  // A copy of the finished run, for a test to damage.
  std::filesystem::path copy_of_run(const std::string& name) {
    const auto copy = dir / name;
    std::filesystem::copy(run_->out, copy, std::filesystem::copy_options::recursive);
    return copy;
  }
  ProcessResult compare(const std::filesystem::path& b) {
    return run_runner({"compare", run_->out.string(), b.string(), "--fail-above", "5", "--out",
                       (dir / "compare.csv").string()},
                      120);
  }
  ProcessResult report(const std::filesystem::path& folder) {
    return run_runner({"report", folder.string(), "--out", (dir / "report").string()}, 120);
  }
  static void expect_no_traceback(const ProcessResult& r) {
    EXPECT_EQ(r.err.find("Traceback"), std::string::npos) << r.err;
  }

  TempDir dir;
};
FinishedRun* AnalysisInput::run_ = nullptr;

TEST_F(AnalysisInput, TheGatePassesWhenItComparedPoints) {
  // The control: the same run compared with itself checks every point and passes.
  const ProcessResult r = compare(run_->out);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("gate: passed (" + std::to_string(kQuickPoints) + " points checked)"),
            std::string::npos)
      << r.out;
}

TEST_F(AnalysisInput, TheGateFailsWhenBIsEmpty) {
  const auto b = copy_of_run("empty");
  write_text(b / "records.jsonl", "");
  std::filesystem::remove(b / "records.csv");
  const ProcessResult r = compare(b);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("gate: FAILED, nothing was checked: A holds 8 record(s), 8 ok (experiment "
                       "quick); B holds 0 record(s), 0 ok; 0 point(s) ok in both"),
            std::string::npos)
      << r.out;
}

TEST_F(AnalysisInput, TheGateFailsWhenEveryPointOfBFailed) {
  const auto b = copy_of_run("failed");
  std::string failed;
  for (auto rec : records_in(b / "records.jsonl")) {
    rec["status"] = "failed";
    rec["message"] = "verification failed";
    failed += rec.dump() + "\n";
  }
  write_text(b / "records.jsonl", failed);
  std::filesystem::remove(b / "records.csv");
  const ProcessResult r = compare(b);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("B holds 8 record(s), 0 ok"), std::string::npos) << r.out;
}

TEST_F(AnalysisInput, TheGateFailsWhenBIsAnotherExperiment) {
  write_text(dir / "other.yaml",
             "experiment: other\nkernel: transpose\nrepeat: {warmup: 0, min_samples: 1, "
             "max_samples: 1}\nsweeps:\n  - {variant: omp_serial, size: [8, 16]}\n");
  ASSERT_EQ(run({(dir / "other.yaml").string(), "--out", (dir / "other").string(), "-q"}).exit_code,
            0);
  const ProcessResult r = compare(dir / "other");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("B holds 2 record(s), 2 ok (experiment other); 0 point(s) ok in both"),
            std::string::npos)
      << r.out;
}

TEST_F(AnalysisInput, ABrokenRecordsCsvWithoutJsonlIsAClearError) {
  const auto broken = copy_of_run("broken");
  std::filesystem::remove(broken / "records.jsonl");
  write_text(broken / "records.csv", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
  for (const ProcessResult& r : {report(broken), compare(broken)}) {
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find((broken / "records.csv").string() + ": not a records file"),
              std::string::npos)
        << r.err;
    expect_no_traceback(r);
  }
  // A quote that never closes: what a crash or an editor can leave.
  write_text(broken / "records.csv", "point_id,status\r\n\"p0123,ok\r\n");
  const ProcessResult r = report(broken);
  EXPECT_NE(r.exit_code, 1) << r.err;
  expect_no_traceback(r);
}

TEST_F(AnalysisInput, AFolderWithoutRecordsOrAFileIsAClearError) {
  std::filesystem::create_directories(dir / "empty");
  write_text(dir / "file", "not a folder\n");
  const ProcessResult empty = report(dir / "empty");
  EXPECT_EQ(empty.exit_code, 2) << empty.out << empty.err;
  EXPECT_NE(empty.err.find("not a results directory: it holds no records.csv or records.jsonl"),
            std::string::npos)
      << empty.err;
  const ProcessResult file = report(dir / "file");
  EXPECT_EQ(file.exit_code, 2) << file.err;
  EXPECT_NE(file.err.find("is a file, not a results directory"), std::string::npos) << file.err;
  const ProcessResult missing = report(dir / "missing");
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("no such directory"), std::string::npos) << missing.err;
}

TEST_F(AnalysisInput, CorruptLinesAreSkippedWithAWarning) {
  const auto damaged = copy_of_run("damaged");
  // A CSV row with cells beyond the header's (pandas dropped such rows silently).
  std::string csv = read_text(damaged / "records.csv");
  const auto second_row = csv.find("\r\n", csv.find("\r\n") + 2) + 2;
  csv.insert(second_row, "p0000000000000001,x,y,z,extra,cells,beyond,the,header" +
                             std::string(100, ',') + "\r\n");
  write_text(damaged / "records.csv", csv);
  const ProcessResult r = report(damaged);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("records.csv: skipped 1 corrupt row(s) whose cell count is not the "
                       "header's (line 3)"),
            std::string::npos)
      << r.err;
  // The JSONL alone, with a line that is not JSON and one that is not an object.
  std::filesystem::remove(damaged / "records.csv");
  const std::string jsonl = read_text(damaged / "records.jsonl");
  write_text(damaged / "records.jsonl", "not json\n[1, 2]\n" + jsonl);
  const ProcessResult from_jsonl = report(damaged);
  EXPECT_EQ(from_jsonl.exit_code, 0) << from_jsonl.err;
  EXPECT_NE(from_jsonl.err.find("records.jsonl: skipped 2 corrupt line(s) that are not a JSON "
                                "object (line 1, 2)"),
            std::string::npos)
      << from_jsonl.err;
}

}  // namespace
}  // namespace runner::hostile
