// write_file_atomically, read_jsonl and RecordFiles: what a crash can and cannot leave on disk.
#include <unistd.h>

#include <gtest/gtest.h>

#include "runner/results_files.hpp"
#include "tests/unit/temp_dir.hpp"

namespace runner {
namespace {

using testing::read_file;
using testing::TempDir;
using testing::write_file;

TEST(WriteFileAtomically, CreatesAndReplaces) {
  TempDir dir;
  const auto file = dir / "manifest.json";
  write_file_atomically(file, "first\n");
  EXPECT_EQ(read_file(file), "first\n");
  write_file_atomically(file, "second, longer content\n");
  EXPECT_EQ(read_file(file), "second, longer content\n");
  write_file_atomically(file, "");
  EXPECT_EQ(read_file(file), "");
  // No temporary file is left behind.
  std::size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    ++entries;
    EXPECT_EQ(e.path().filename(), "manifest.json");
  }
  EXPECT_EQ(entries, 1u);
}

TEST(WriteFileAtomically, ErrorNamesThePathAndTheReason) {
  TempDir dir;
  const auto file = dir / "missing_folder" / "x.json";
  try {
    write_file_atomically(file, "x");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              file.string() + ".tmp: cannot create: No such file or directory");
  }
}

TEST(WriteFileAtomically, AFailedWriteKeepsTheOldContent) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  TempDir dir;
  const auto file = dir / "records.csv";
  write_file_atomically(file, "old\n");
  std::filesystem::permissions(
      dir.path(), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  EXPECT_THROW(write_file_atomically(file, "new\n"), std::runtime_error);
  std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_all);
  EXPECT_EQ(read_file(file), "old\n");
}

TEST(ReadJsonl, ReadsEveryLine) {
  TempDir dir;
  const auto file = dir / "records.jsonl";
  write_file(file, "{\"a\":1}\n{\"a\":2,\"b\":\"x\"}\n\n{\"a\":3}\n");
  std::vector<std::string> warnings;
  const auto records = read_jsonl(file, &warnings);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[1]["b"], "x");
  EXPECT_EQ(records[2]["a"], 3);
  EXPECT_TRUE(warnings.empty());
  // Key order is kept (CSV columns follow it).
  EXPECT_EQ(records[1].begin().key(), "a");
}

TEST(ReadJsonl, DropsATruncatedLastLineWithAWarning) {
  TempDir dir;
  const auto file = dir / "records.jsonl";
  write_file(file, "{\"a\":1}\n{\"a\":2}\n{\"a\":3,\"b\":");
  std::vector<std::string> warnings;
  const auto records = read_jsonl(file, &warnings);
  ASSERT_EQ(records.size(), 2u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            file.string() + ":3: dropped a truncated last record (11 bytes without a newline)");
}

TEST(ReadJsonl, ACompleteLastLineWithoutNewlineIsStillDropped) {
  // Without its newline a line may be a prefix of a longer record that happens to parse.
  TempDir dir;
  const auto file = dir / "records.jsonl";
  write_file(file, "{\"a\":1}\n{\"a\":2}");
  std::vector<std::string> warnings;
  EXPECT_EQ(read_jsonl(file, &warnings).size(), 1u);
  EXPECT_EQ(warnings.size(), 1u);
}

TEST(ReadJsonl, ACorruptMiddleLineIsAnError) {
  TempDir dir;
  const auto file = dir / "records.jsonl";
  write_file(file, "{\"a\":1}\n{\"a\":\n{\"a\":3}\n");
  try {
    read_jsonl(file, nullptr);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with(file.string() + ":2: not a JSON record: "))
        << e.what();
  }
}

TEST(ReadJsonl, AMissingFileHasNoRecords) {
  TempDir dir;
  std::vector<std::string> warnings;
  EXPECT_TRUE(read_jsonl(dir / "absent.jsonl", &warnings).empty());
  EXPECT_TRUE(warnings.empty());
}

Record numbered(int i) {
  Record r;
  r["point_id"] = "p" + std::to_string(i);
  r["kernel"] = "gemm";
  r["message"] = i % 2 ? "odd, with \"quotes\"" : "";
  r["status"] = "ok";
  return r;
}

TEST(RecordFiles, AppendWritesJsonlLinesAndRewritesTheCsv) {
  TempDir dir;
  RecordFiles files(dir / "out", "records");
  files.append(numbered(1));
  files.append(numbered(2));
  EXPECT_EQ(read_file(dir / "out" / "records.jsonl"),
            numbered(1).dump() + "\n" + numbered(2).dump() + "\n");
  EXPECT_EQ(read_file(dir / "out" / "records.csv"), to_csv({numbered(1), numbered(2)}));
  EXPECT_EQ(files.records().size(), 2u);
}

TEST(RecordFiles, StartWithReplacesWhatWasThere) {
  TempDir dir;
  {
    RecordFiles files(dir.path(), "records");
    for (int i = 0; i < 4; ++i) files.append(numbered(i));
  }
  RecordFiles files(dir.path(), "records");
  files.start_with({numbered(0), numbered(2)});
  files.append(numbered(5));
  const auto back = read_jsonl(dir / "records.jsonl", nullptr);
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[0]["point_id"], "p0");
  EXPECT_EQ(back[1]["point_id"], "p2");
  EXPECT_EQ(back[2]["point_id"], "p5");
  EXPECT_EQ(read_file(dir / "records.csv"), to_csv(back));
}

TEST(RecordFiles, ShardStemsMakeTheirFolder) {
  TempDir dir;
  RecordFiles files(dir.path(), "shards/3");
  files.append(numbered(1));
  EXPECT_TRUE(std::filesystem::exists(dir / "shards" / "3.jsonl"));
  EXPECT_TRUE(std::filesystem::exists(dir / "shards" / "3.csv"));
}

}  // namespace
}  // namespace runner
