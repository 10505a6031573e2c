#pragma once
#include <cstdio>
#include <filesystem>
#include <functional>
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
std::vector<Record> read_jsonl(const std::filesystem::path& file,
                               std::vector<std::string>* warnings);

// Appends lines to `<file>` (made if missing): where a resume puts what it drops from a records
// file (unreadable lines, duplicates, records of other points), so that nothing is lost.
void append_dropped_lines(const std::filesystem::path& file, const std::vector<std::string>& lines,
                          std::string_view why);

// The record files of one run (or one shard): `<stem>.jsonl` and `<stem>.csv`, both appended a
// line per point, never rewritten per point (a run's bookkeeping stays linear in its points).
// Every record is written in the order and with the columns of the column table
// (runner/results/columns.hpp): append refuses a field the table lacks (std::logic_error), and the
// CSV's header is fixed when the files start. A point has one current record: a later record of
// the same point (a failed point run again by a resume) supersedes the earlier one; until
// compact() (the end of the run) both lines stay in both files, the later last, as readers expect
// (analysis/ keeps a point's last record). A write that fails (full disk, quota) leaves the file
// as it was before the write and throws Refused.
//
// Durability: each line is written with write(2) as its point ends, so a killed runner (kill -9,
// the OOM killer, a node's job kill) loses nothing: the kernel's page cache outlives the process.
// fsync(2), which only matters if the machine itself loses power or crashes, runs at most every
// `sync_interval_s` (and at compact() and destruction): such a crash can cost the records of the
// last interval (default 1 s), which a resume measures again.
class RecordFiles {
 public:
  static constexpr double kDefaultSyncIntervalSeconds = 1.0;
  RecordFiles(std::filesystem::path dir, std::string stem,
              double sync_interval_s = kDefaultSyncIntervalSeconds);
  ~RecordFiles();
  RecordFiles(const RecordFiles&) = delete;
  RecordFiles& operator=(const RecordFiles&) = delete;

  // Starts from the records kept by a resume (none for a new run): the files hold exactly these.
  void start_with(std::vector<Record> kept);
  void append(const Record& record);
  // Rewrites both files without superseded lines, when there are any, and syncs them to disk.
  void compact();
  // Lets `update` change the current records (the comparative fields of a run whose points
  // finished out of order: runner/results/relative_metrics.hpp); the files are rewritten by the
  // next compact() when it changed any.
  void update_records(const std::function<void(std::vector<Record>&)>& update);
  // fsync of both files now.
  void sync();
  // The current record of each point, in the order points were first recorded.
  const std::vector<Record>& records() const { return records_; }
  std::filesystem::path jsonl_path() const { return dir_ / (stem_ + ".jsonl"); }
  std::filesystem::path csv_path() const { return dir_ / (stem_ + ".csv"); }

 private:
  void open_files();
  void index_records();
  void rewrite_files();
  std::filesystem::path dir_;
  std::string stem_;
  double sync_interval_s_;
  int jsonl_fd_ = -1, csv_fd_ = -1;
  std::vector<std::string> csv_columns_;  // the header of the CSV being appended to
  std::vector<Record> records_;
  std::map<std::string, std::size_t> index_;  // point id → position in records_
  bool superseded_ = false;
  double last_sync_s_ = 0;  // steady clock, seconds
};

}  // namespace runner
