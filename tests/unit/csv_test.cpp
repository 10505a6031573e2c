// records.csv: RFC 4180 escaping, cell formats and the column order contract.
#include <limits>

#include <gtest/gtest.h>

#include "runner/results/record.hpp"

namespace runner {
namespace {

TEST(CsvEscape, PlainFieldsAreUnchanged) {
  EXPECT_EQ(csv_escape("omp_blocked"), "omp_blocked");
  EXPECT_EQ(csv_escape(""), "");
  EXPECT_EQ(csv_escape("a b;c"), "a b;c");
}

TEST(CsvEscape, CommaQuoteAndLineBreaksAreQuoted) {
  EXPECT_EQ(csv_escape("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_escape("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_escape("line1\nline2"), "\"line1\nline2\"");
  EXPECT_EQ(csv_escape("cr\rhere"), "\"cr\rhere\"");
  EXPECT_EQ(csv_escape("\""), "\"\"\"\"");
}

TEST(CsvCell, ByJsonType) {
  using J = nlohmann::ordered_json;
  EXPECT_EQ(csv_cell(J(nullptr)), "");
  EXPECT_EQ(csv_cell(J("x,y")), "\"x,y\"");
  EXPECT_EQ(csv_cell(J(true)), "true");
  EXPECT_EQ(csv_cell(J(false)), "false");
  EXPECT_EQ(csv_cell(J(42)), "42");
  EXPECT_EQ(csv_cell(J(-7)), "-7");
  EXPECT_EQ(csv_cell(J(0.125)), "0.125");
  EXPECT_EQ(csv_cell(J(1.0 / 3.0)), "0.333333333");
  EXPECT_EQ(csv_cell(J(1e-12)), "1e-12");
  EXPECT_EQ(csv_cell(J(std::numeric_limits<double>::infinity())), "inf");
  EXPECT_EQ(csv_cell(J(-std::numeric_limits<double>::infinity())), "-inf");
  EXPECT_EQ(csv_cell(J(std::numeric_limits<double>::quiet_NaN())), "nan");
  EXPECT_EQ(csv_cell(J::array({1, 2})), "\"[1,2]\"");
}

TEST(CsvColumns, RequiredFirstThenKnownExtrasThenAlphabetical) {
  Record a;
  a["zeta"] = 1;
  a["time_ms_rsd"] = 0.1;
  a["kernel"] = "gemm";
  a["alpha"] = 2;
  Record b;
  b["kernel_size"] = 3;
  b["h2d_ms"] = 0.5;
  b["beta"] = 3;
  const auto columns = csv_columns({a, b});
  ASSERT_EQ(columns.size(), kRequiredColumns.size() + 6);
  for (std::size_t i = 0; i < kRequiredColumns.size(); ++i)
    EXPECT_EQ(columns[i], kRequiredColumns[i]) << i;
  const std::vector<std::string> tail(columns.begin() + static_cast<long>(kRequiredColumns.size()),
                                      columns.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"kernel_size", "time_ms_rsd", "h2d_ms", "alpha", "beta",
                                            "zeta"}));
}

TEST(CsvColumns, TheRequiredColumnsAreTheContract) {
  // analysis/ and users' spreadsheets read these names in this order.
  // clang-format off
  const std::vector<std::string_view> expected = {
      "experiment", "point_id", "kernel", "variant", "backend", "dtype", "m", "n", "k",
      "block_x", "block_y", "threads", "status", "message", "samples", "time_ms_median",
      "time_ms_min", "time_ms_mean", "time_ms_stddev", "gflops", "gbps", "speedup", "efficiency",
      "verified", "max_rel_err", "host", "gpu", "slurm_job_id", "slurm_array_task_id", "timestamp"};
  // clang-format on
  EXPECT_EQ(kRequiredColumns, expected);
}

TEST(ToCsv, HeaderAndRowsWithCrlf) {
  Record r;
  r["kernel"] = "gemm";
  r["message"] = "failed: a, \"b\"\nc";
  r["m"] = 64;
  r["speedup"] = nullptr;
  r["extra_note"] = "x";
  const std::string csv = to_csv({r});
  std::string header;
  for (auto c : kRequiredColumns) header += std::string(header.empty() ? "" : ",") + std::string(c);
  header += ",extra_note\r\n";
  ASSERT_TRUE(csv.starts_with(header)) << csv;
  // kernel is column 3, m column 7, message column 14; everything else empty.
  const std::string row = csv.substr(header.size());
  EXPECT_EQ(row, ",,gemm,,,,64,,,,,,,\"failed: a, \"\"b\"\"\nc\",,,,,,,,,,,,,,,,,x\r\n");
}

TEST(ToCsv, NoRecordsIsJustTheHeader) {
  const std::string csv = to_csv({});
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1);
  EXPECT_TRUE(csv.starts_with("experiment,point_id,kernel,"));
}

TEST(ProblemKeyOf, SameProblemSameKey) {
  Record a, b, c;
  for (Record* r : {&a, &b, &c}) {
    (*r)["kernel"] = "gemm";
    (*r)["dtype"] = "float";
    (*r)["m"] = 8;
    (*r)["n"] = 8;
    (*r)["k"] = 8;
  }
  b["variant"] = "other";
  b["threads"] = 4;
  c["k"] = 16;
  EXPECT_EQ(problem_key_of(a), problem_key_of(b));
  EXPECT_NE(problem_key_of(a), problem_key_of(c));
}

TEST(StatusName, Spelling) {
  EXPECT_EQ(status_name(Status::ok), "ok");
  EXPECT_EQ(status_name(Status::failed), "failed");
  EXPECT_EQ(status_name(Status::skipped), "skipped");
  EXPECT_EQ(status_name(Status::invalid), "invalid");
}

}  // namespace
}  // namespace runner
