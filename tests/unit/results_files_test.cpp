// write_file_atomically, read_jsonl and RecordFiles: what a crash can and cannot leave on disk.
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>

#include <gtest/gtest.h>

#include "runner/base/errors.hpp"
#include "runner/results/columns.hpp"
#include "runner/results/record_files.hpp"
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
    // The temporary beside the file is named for this process (shards share some files).
    EXPECT_EQ(std::string(e.what()), file.string() + "." + std::to_string(::getpid()) +
                                         ".tmp: cannot create: No such file or directory");
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

TEST(ReadJsonl, UnreadableLinesAreLeftOutWithAWarningAndTheirText) {
  // A damaged line costs itself, not the records around it (nor, in collect, its whole shard).
  TempDir dir;
  const auto file = dir / "records.jsonl";
  write_file(file, "{\"a\":1}\n{\"a\":\n[1,2]\n{\"a\":3}\r\n\x01\x02\n{\"a\":4}\n");
  const JsonlContent content = read_records(file);
  ASSERT_EQ(content.records.size(), 3u);
  EXPECT_EQ(content.records[1]["a"], 3);  // a CRLF line end is read like LF
  ASSERT_EQ(content.warnings.size(), 3u);
  EXPECT_TRUE(
      content.warnings[0].starts_with(file.string() + ":2: dropped an unreadable line: not JSON"))
      << content.warnings[0];
  EXPECT_TRUE(content.warnings[1].starts_with(file.string() +
                                              ":3: dropped an unreadable line: not a JSON object"))
      << content.warnings[1];
  EXPECT_EQ(content.dropped_lines, (std::vector<std::string>{"{\"a\":", "[1,2]", "\x01\x02"}));
}

TEST(ReadJsonl, IdsOfEarlierReleasesAreReadAsTodays) {
  TempDir dir;
  const auto file = dir / "records.jsonl";
  write_file(file, "{\"point_id\":\"5771271885670859\"}\n{\"point_id\":\"p0123456789abcdef\"}\n");
  const auto records = read_jsonl(file, nullptr);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0]["point_id"], "p5771271885670859");
  EXPECT_EQ(records[1]["point_id"], "p0123456789abcdef");
}

TEST(ReadJsonl, AMissingFileHasNoRecords) {
  TempDir dir;
  std::vector<std::string> warnings;
  EXPECT_TRUE(read_jsonl(dir / "absent.jsonl", &warnings).empty());
  EXPECT_TRUE(warnings.empty());
}

// A record as the files hold it: every column of the table, in order.
Record numbered(int i) {
  Record r;
  r["point_id"] = "p" + std::to_string(i);
  r["kernel"] = "gemm";
  r["message"] = i % 2 ? "odd, with \"quotes\"" : "";
  r["status"] = "ok";
  return canonical_record(r, UnknownFields::refuse);
}

TEST(RecordFiles, AppendWritesJsonlLinesAndCsvRows) {
  TempDir dir;
  RecordFiles files(dir / "out", "records");
  files.append(numbered(1));
  files.append(numbered(2));
  EXPECT_EQ(read_file(dir / "out" / "records.jsonl"),
            numbered(1).dump() + "\n" + numbered(2).dump() + "\n");
  EXPECT_EQ(read_file(dir / "out" / "records.csv"), to_csv({numbered(1), numbered(2)}));
  EXPECT_EQ(files.records().size(), 2u);
}

TEST(RecordFiles, TheCsvIsAppendedNotRewritten) {
  // Bookkeeping linear in the points: the CSV file a reader opened keeps growing (same inode), and
  // a run that goes on in a folder continues the files it finds.
  TempDir dir;
  struct stat before {
  }, after{};
  {
    RecordFiles files(dir.path(), "records");
    files.append(numbered(1));
    ASSERT_EQ(::stat((dir / "records.csv").c_str(), &before), 0);
    for (int i = 2; i < 50; ++i) files.append(numbered(i));
  }
  ASSERT_EQ(::stat((dir / "records.csv").c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
  RecordFiles again(dir.path(), "records");
  again.append(numbered(50));
  std::vector<Record> all;
  for (int i = 1; i <= 50; ++i) all.push_back(numbered(i));
  EXPECT_EQ(read_file(dir / "records.csv"), to_csv(all));
}

TEST(RecordFiles, ACsvFromAnotherReleaseIsWrittenAgainBeforeAppending) {
  TempDir dir;
  write_file(dir / "records.jsonl", numbered(1).dump() + "\n");
  write_file(dir / "records.csv", "point_id,kernel\r\np1,gemm\r\n");
  RecordFiles files(dir.path(), "records");
  files.append(numbered(2));
  EXPECT_EQ(read_file(dir / "records.csv"), to_csv({numbered(1), numbered(2)}));
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

Record with_status(int i, const char* status) {
  Record r = numbered(i);
  r["status"] = status;
  return r;
}

TEST(RecordFiles, AFieldTheColumnTableLacksIsNeverWritten) {
  TempDir dir;
  RecordFiles files(dir.path(), "records");
  Record r = numbered(1);
  r["my_new_field"] = 1;
  EXPECT_THROW(files.append(r), std::logic_error);
  EXPECT_EQ(read_file(dir / "records.jsonl"), "");
  // Kept records of an earlier release keep such fields.
  files.start_with({r});
  EXPECT_EQ(read_jsonl(dir / "records.jsonl", nullptr).at(0)["my_new_field"], 1);
}

TEST(RecordFiles, ALaterRecordOfAPointSupersedesTheEarlierOne) {
  // A resume runs a failed point again: its new record is the point's current one at once; in
  // both files the later line follows the earlier one until the run ends (compact), which keeps
  // one line per point.
  TempDir dir;
  RecordFiles files(dir.path(), "records");
  files.append(with_status(1, "failed"));
  files.append(with_status(2, "ok"));
  files.append(with_status(1, "ok"));
  ASSERT_EQ(files.records().size(), 2u);
  EXPECT_EQ(files.records()[0], with_status(1, "ok"));
  EXPECT_EQ(read_file(dir / "records.csv"),
            to_csv({with_status(1, "failed"), with_status(2, "ok"), with_status(1, "ok")}));
  EXPECT_EQ(read_jsonl(dir / "records.jsonl", nullptr).size(), 3u);
  files.compact();
  EXPECT_EQ(read_file(dir / "records.jsonl"),
            with_status(1, "ok").dump() + "\n" + with_status(2, "ok").dump() + "\n");
  EXPECT_EQ(read_file(dir / "records.csv"), to_csv({with_status(1, "ok"), with_status(2, "ok")}));
  files.append(with_status(3, "ok"));  // still appends to the compacted files
  EXPECT_EQ(read_jsonl(dir / "records.jsonl", nullptr).size(), 3u);
  EXPECT_EQ(read_file(dir / "records.csv"),
            to_csv({with_status(1, "ok"), with_status(2, "ok"), with_status(3, "ok")}));
}

TEST(RecordFiles, AWriteThatFailsHalfWayLeavesTheFileAsItWas) {
  // A full disk (here: a file size limit, which fails a write the same way) must not end the
  // JSONL in half a record: the part written is taken back, and the error names the file.
  TempDir dir;
  RecordFiles files(dir.path(), "records");
  files.append(numbered(1));
  const std::string before = read_file(dir / "records.jsonl");
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit old_limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  rlimit small = old_limit;
  small.rlim_cur = before.size() + 10;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  try {
    files.append(numbered(2));
    ADD_FAILURE() << "the append did not fail";
  } catch (const Refused& e) {
    EXPECT_NE(std::string(e.what()).find("records.jsonl: cannot append a record: File too large"),
              std::string::npos)
        << e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(read_file(dir / "records.jsonl"), before);
  EXPECT_EQ(files.records().size(), 1u);
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
