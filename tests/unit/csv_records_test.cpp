// records.csv read back into records (runner/results/csv_records.hpp): what a resume recovers
// when records.jsonl is gone.
#include <limits>

#include <gtest/gtest.h>

#include "runner/results/columns.hpp"
#include "runner/results/csv_records.hpp"
#include "runner/results/record.hpp"
#include "tests/unit/temp_dir.hpp"

namespace runner {
namespace {

using runner::testing::TempDir;

Record sample_record(const std::string& id, const std::string& message) {
  Record r;
  r["experiment"] = "e";
  r["point_id"] = id;
  r["kernel"] = "gemm";
  r["status"] = "failed";
  r["message"] = message;
  r["m"] = 4096;
  r["time_ms_median"] = 1.0 / 3.0;
  r["verified"] = false;
  r["gflops"] = std::numeric_limits<double>::infinity();
  return canonical_record(r, UnknownFields::refuse);
}

void write(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

TEST(CsvRecords, ReadBackWhatToCsvWrote) {
  TempDir dir;
  const std::vector<Record> records = {
      sample_record("p0000000000000001", "plain"),
      sample_record("p0000000000000002", "a, \"quoted\"\r\nmulti-line message"),
  };
  write(dir / "records.csv", to_csv(records));
  const CsvRecords read = read_csv_records(dir / "records.csv");
  EXPECT_TRUE(read.warnings.empty());
  ASSERT_EQ(read.records.size(), 2u);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Record& r = read.records[i];
    EXPECT_EQ(r["point_id"], records[i]["point_id"]);
    EXPECT_EQ(r["message"], records[i]["message"]);
    EXPECT_EQ(r["m"], 4096);
    EXPECT_TRUE(r["m"].is_number_integer());
    EXPECT_NEAR(r["time_ms_median"].get<double>(), 1.0 / 3.0, 1e-9);
    EXPECT_EQ(r["verified"], false);
    EXPECT_TRUE(r["k"].is_null());
    EXPECT_EQ(r["gflops"].get<double>(), std::numeric_limits<double>::infinity());
    // Valid as a record of this runner: every column, each of its type.
    EXPECT_NO_THROW(canonical_record(r, UnknownFields::refuse));
  }
}

TEST(CsvRecords, DamagedRowsAreLeftOutWithTheirLine) {
  TempDir dir;
  std::string text = to_csv({sample_record("p0000000000000001", "ok")});
  const std::string header = text.substr(0, text.find("\r\n") + 2);
  text += "p0000000000000002,too,few\r\n";  // line 3: the wrong cell count
  text += to_csv({sample_record("p0000000000000003", "x")}).substr(header.size());
  text.replace(text.rfind(",4096,"), 6, ",4096.5,");  // line 4: m is not an integer
  text += to_csv({sample_record("p0000000000000004", "x")}).substr(header.size());
  text.resize(text.size() - 10);  // line 5: cut short
  write(dir / "records.csv", text);
  const CsvRecords read = read_csv_records(dir / "records.csv");
  ASSERT_EQ(read.records.size(), 1u);
  EXPECT_EQ(read.records[0]["point_id"], "p0000000000000001");
  ASSERT_EQ(read.warnings.size(), 3u);
  EXPECT_NE(read.warnings[0].find("records.csv:3: dropped an unreadable row: 3 cells"),
            std::string::npos)
      << read.warnings[0];
  EXPECT_NE(read.warnings[1].find("records.csv:4: dropped an unreadable row: its m '4096.5' is "
                                  "not integer"),
            std::string::npos)
      << read.warnings[1];
  EXPECT_NE(read.warnings[2].find("records.csv:5: dropped a truncated last row"), std::string::npos)
      << read.warnings[2];
  EXPECT_EQ(read.dropped_lines.size(), 3u);
}

TEST(CsvRecords, AnEmptyOrMissingFileHoldsNoRecord) {
  TempDir dir;
  EXPECT_TRUE(read_csv_records(dir / "missing.csv").records.empty());
  write(dir / "empty.csv", "");
  EXPECT_TRUE(read_csv_records(dir / "empty.csv").records.empty());
  write(dir / "header.csv", csv_header(csv_columns({})));
  EXPECT_TRUE(read_csv_records(dir / "header.csv").records.empty());
}

}  // namespace
}  // namespace runner
