// records.csv: RFC 4180 escaping, cell formats and the column order contract.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include <set>

#include <gtest/gtest.h>

#include "runner/results/columns.hpp"
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
  EXPECT_EQ(csv_cell(J(1.0 / 3.0)), "0.3333333333333333");
  EXPECT_EQ(csv_cell(J(1e-12)), "1e-12");
  EXPECT_EQ(csv_cell(J(std::numeric_limits<double>::infinity())), "inf");
  EXPECT_EQ(csv_cell(J(-std::numeric_limits<double>::infinity())), "-inf");
  EXPECT_EQ(csv_cell(J(std::numeric_limits<double>::quiet_NaN())), "nan");
  EXPECT_EQ(csv_cell(J::array({1, 2})), "\"[1,2]\"");
}

// A cell reads back as the very double the JSONL line holds: a max_rel_err a hair under its
// verify_tolerance stays under it in the CSV (9 digits made 1.00000000049e-6 read as 1.0e-6).
TEST(CsvCell, NumbersRoundTripLikeTheJsonl) {
  using J = nlohmann::ordered_json;
  auto read = [](const std::string& cell) { return std::strtod(cell.c_str(), nullptr); };
  const double tolerance = 1.0000000005e-6;
  const double err = std::nextafter(tolerance, 0.0);
  EXPECT_LT(read(csv_cell(J(err))), tolerance);
  for (double d :
       {err, tolerance, 7.344e-06, 0.1 + 0.2, 1e300, 5e-324, 123456789.123456789, -2.5e-17}) {
    EXPECT_EQ(read(csv_cell(J(d))), d) << csv_cell(J(d));
    EXPECT_EQ(read(csv_cell(J(d))), J::parse(J(d).dump()).get<double>());
  }
  EXPECT_EQ(csv_cell(J(7.344e-06)), "7.344e-06");
  EXPECT_EQ(csv_cell(J(1.0)), "1");
}

std::vector<std::string> table_names() {
  std::vector<std::string> names;
  for (const auto& c : columns()) names.push_back(c.name);
  return names;
}

TEST(CsvColumns, EveryTableColumnInOrderThenUnknownFieldsAlphabetical) {
  // One fixed column set for every run: what the records hold does not change the header. Fields
  // the table lacks come only from records of earlier releases, after it.
  Record a;
  a["zeta"] = 1;
  a["time_ms_rsd"] = 0.1;
  a["kernel"] = "gemm";
  a["alpha"] = 2;
  Record b;
  b["kernel_size"] = 3;
  b["beta"] = 3;
  std::vector<std::string> expected = table_names();
  for (const char* extra : {"alpha", "beta", "zeta"}) expected.emplace_back(extra);
  EXPECT_EQ(csv_columns({a, b}), expected);
  EXPECT_EQ(csv_columns({}), table_names());
}

TEST(CsvColumns, TheFirstColumnsAreTheContract) {
  // analysis/ and users' spreadsheets read these names in this order.
  // clang-format off
  const std::vector<std::string> expected = {
      "experiment", "point_id", "kernel", "variant", "backend", "dtype", "m", "n", "k",
      "block_x", "block_y", "threads", "status", "message", "samples", "time_ms_median",
      "time_ms_min", "time_ms_mean", "time_ms_stddev", "gflops", "gbps", "speedup", "efficiency",
      "verified", "max_rel_err", "host", "gpu", "slurm_job_id", "slurm_array_task_id", "timestamp"};
  // clang-format on
  const auto names = table_names();
  ASSERT_GE(names.size(), expected.size());
  EXPECT_EQ(
      std::vector<std::string>(names.begin(), names.begin() + static_cast<long>(expected.size())),
      expected);
}

TEST(ColumnTable, EveryColumnHasATypeAMeaningAndWhoFillsIt) {
  std::set<std::string> names;
  for (const auto& c : columns()) {
    EXPECT_TRUE(names.insert(c.name).second) << c.name;
    EXPECT_FALSE(c.meaning.empty()) << c.name;
    EXPECT_FALSE(c.filled_by.empty()) << c.name;
    EXPECT_EQ(find_column(c.name), &c);
  }
  EXPECT_EQ(find_column("no_such_column"), nullptr);
}

TEST(CanonicalRecord, EveryColumnInTableOrderNullWhereNotSet) {
  Record r;
  r["status"] = "ok";
  r["kernel"] = "gemm";
  r["m"] = 64;
  const Record c = canonical_record(r, UnknownFields::refuse);
  std::vector<std::string> keys;
  for (const auto& item : c.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, table_names());
  EXPECT_EQ(c["kernel"], "gemm");
  EXPECT_EQ(c["m"], 64);
  EXPECT_TRUE(c["gflops"].is_null());
}

TEST(CanonicalRecord, AFieldTheTableLacksIsRefusedOrKept) {
  Record r;
  r["kernel"] = "gemm";
  r["tile_shape"] = "128x128";
  try {
    canonical_record(r, UnknownFields::refuse);
    ADD_FAILURE() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("record field 'tile_shape' is not in the column table"),
              std::string::npos)
        << e.what();
  }
  // Records of an earlier release keep what they had.
  const Record kept = canonical_record(r, UnknownFields::keep);
  EXPECT_EQ(kept.back(), "128x128");
  EXPECT_EQ((--kept.end()).key(), "tile_shape");
}

TEST(CanonicalRecord, AValueOfTheWrongTypeIsRefused) {
  for (const auto& [column, value] : std::vector<std::pair<std::string, Record>>{
           {"m", "64"}, {"gflops", "fast"}, {"verified", 1}, {"kernel", 3}, {"samples", 2.5}}) {
    Record r;
    r[column] = value;
    EXPECT_THROW(canonical_record(r, UnknownFields::keep), std::logic_error) << column;
  }
  Record fine;
  fine["gflops"] = 3;  // an integer is a number
  EXPECT_NO_THROW(canonical_record(fine, UnknownFields::refuse));
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
  for (const auto& c : table_names()) header += (header.empty() ? "" : ",") + c;
  header += ",extra_note\r\n";
  ASSERT_TRUE(csv.starts_with(header)) << csv;
  // kernel is column 3, m column 7, message column 14; everything else empty.
  const std::string row = csv.substr(header.size());
  EXPECT_EQ(row, ",,gemm,,,,64,,,,,,,\"failed: a, \"\"b\"\"\nc\"" +
                     std::string(table_names().size() - 13, ',') + "x\r\n");
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
