#pragma once
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "runner/record.hpp"

namespace runner {

// Writes a whole file so that readers see the old or the new content, never a mix: a temporary
// file in the same folder, fsync, rename, fsync of the folder. Throws std::runtime_error with the
// path and the system's reason (full disk, no permission).
void write_file_atomically(const std::filesystem::path& file, std::string_view content);

// Reads records.jsonl. A last line without its newline (a write cut short by kill -9 or a full
// disk) is dropped and reported in `warnings`; any other unreadable line is an error.
std::vector<Record> read_jsonl(const std::filesystem::path& file, std::vector<std::string>* warnings);

// The record files of one run (or one shard): `<stem>.jsonl`, appended, flushed and fsynced per
// point, and `<stem>.csv`, rewritten atomically after each point from every record so far.
class RecordFiles {
 public:
  RecordFiles(std::filesystem::path dir, std::string stem);
  ~RecordFiles();
  RecordFiles(const RecordFiles&) = delete;
  RecordFiles& operator=(const RecordFiles&) = delete;

  // Starts from records already on disk (resume): rewrites the JSONL with exactly these.
  void start_with(std::vector<Record> kept);
  void append(const Record& record);
  const std::vector<Record>& records() const { return records_; }
  std::filesystem::path jsonl_path() const { return dir_ / (stem_ + ".jsonl"); }
  std::filesystem::path csv_path() const { return dir_ / (stem_ + ".csv"); }

 private:
  void open_jsonl(const char* mode);
  std::filesystem::path dir_;
  std::string stem_;
  std::FILE* jsonl_ = nullptr;
  std::vector<Record> records_;
};

}  // namespace runner
