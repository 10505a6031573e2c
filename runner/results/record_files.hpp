#pragma once
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runner/base/durable_file.hpp"
#include "runner/base/errors.hpp"
#include "runner/results/record.hpp"

namespace runner {

// What a records file holds. Reading is tolerant, since the file may have met a crash or a hand:
// a last line without its newline (a write cut short by kill -9 or a full disk) and lines that are
// not a JSON object are left out with a warning each, their text kept in `dropped_lines`. Point
// ids of earlier releases are brought to the current form (normalize_point_id).
struct JsonlContent {
  std::vector<Record> records;
  std::vector<std::string> dropped_lines;
  std::vector<std::string> warnings;
};
JsonlContent read_records(const std::filesystem::path& file);
// The records alone; warnings appended to `warnings` when given.
std::vector<Record> read_jsonl(const std::filesystem::path& file, std::vector<std::string>* warnings);

// Appends lines to `<file>` (made if missing): where a resume puts what it drops from a records
// file (unreadable lines, duplicates, records of other points), so that nothing is lost.
void append_dropped_lines(const std::filesystem::path& file, const std::vector<std::string>& lines,
                          std::string_view why);

// The record files of one run (or one shard): `<stem>.jsonl`, appended, flushed and fsynced per
// point, and `<stem>.csv`, rewritten atomically after each point from the current records. Every
// record is written in the order and with the columns of the column table
// (runner/results/columns.hpp): append refuses a field the table lacks (std::logic_error). A
// point has one current record: a later record of the same point (a failed point run again by a
// resume) supersedes the earlier one; the superseded line stays in the JSONL until compact().
// A write that fails (full disk, quota) leaves the JSONL as it was before the write and throws
// Refused.
class RecordFiles {
 public:
  RecordFiles(std::filesystem::path dir, std::string stem);
  ~RecordFiles();
  RecordFiles(const RecordFiles&) = delete;
  RecordFiles& operator=(const RecordFiles&) = delete;

  // Starts from the records kept by a resume (none for a new run): the JSONL holds exactly these.
  void start_with(std::vector<Record> kept);
  void append(const Record& record);
  // Rewrites the JSONL without superseded lines, when there are any.
  void compact();
  // The current record of each point, in the order points were first recorded.
  const std::vector<Record>& records() const { return records_; }
  std::filesystem::path jsonl_path() const { return dir_ / (stem_ + ".jsonl"); }
  std::filesystem::path csv_path() const { return dir_ / (stem_ + ".csv"); }

 private:
  void open_jsonl();
  void index_records();
  std::filesystem::path dir_;
  std::string stem_;
  int jsonl_fd_ = -1;
  std::vector<Record> records_;
  std::map<std::string, std::size_t> index_;  // point id → position in records_
  bool superseded_ = false;
};

}  // namespace runner
