#include "runner/results/record_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "runner/api/point.hpp"
#include "runner/base/durable_file.hpp"
#include "runner/base/errors.hpp"
#include "runner/measure/environment.hpp"
#include "runner/results/columns.hpp"

namespace runner {

namespace {

// Writes the lines `line(i)` of records 0..n-1 to fd in pieces of about 1 MiB: the text of 100 000
// records is never one string. False (errno set) when a write fails.
template <typename Line>
bool write_lines(int fd, std::string head, std::size_t n, Line line) {
  constexpr std::size_t kPiece = std::size_t{1} << 20;
  std::string piece = std::move(head);
  for (std::size_t i = 0; i < n; ++i) {
    piece += line(i);
    if (piece.size() >= kPiece) {
      if (!write_all(fd, piece)) return false;
      piece.clear();
    }
  }
  return write_all(fd, piece);
}

}  // namespace

JsonlContent read_records(const std::filesystem::path& file) {
  JsonlContent out;
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw Refused(fmt::format("{}: is a folder, not a records file", file.string()));
  std::ifstream in(file, std::ios::binary);
  if (!in) return out;
  // Line by line: the whole text of 100 000 records (150 MB) need not be held beside them.
  std::string text;
  int line_no = 0;
  while (std::getline(in, text)) {
    ++line_no;
    if (in.eof()) {
      // Without its newline a line may be a prefix of a longer record that happens to parse.
      out.warnings.push_back(
          fmt::format("{}:{}: dropped a truncated last record ({} bytes without a newline)",
                      file.string(), line_no, text.size()));
      out.dropped_lines.emplace_back(text);
      break;
    }
    std::string_view line(text);
    // CR of a file edited on Windows; NUL bytes of blocks a crash left zero-filled.
    const auto first = line.find_first_not_of(std::string_view(" \t\r\0", 4));
    if (first == std::string_view::npos) continue;
    line = line.substr(first, line.find_last_not_of(std::string_view(" \t\r\0", 4)) - first + 1);
    std::string why;
    try {
      Record r = Record::parse(line);
      if (!r.is_object()) {
        why = "not a JSON object";
      } else if (const auto bad =
                     std::find_if(r.items().begin(), r.items().end(),
                                  [](const auto& item) {
                                    return (item.key() == "point_id" || item.key() == "status") &&
                                           !item.value().is_string();
                                  });
                 bad != r.items().end()) {
        why = fmt::format("its {} is not text", bad.key());
      } else {
        if (const auto it = r.find("point_id"); it != r.end())
          *it = normalize_point_id(it->get<std::string>());
        out.records.push_back(std::move(r));
        continue;
      }
    } catch (const nlohmann::json::exception& e) {
      why = fmt::format("not JSON ({})", e.what());
    }
    out.warnings.push_back(
        fmt::format("{}:{}: dropped an unreadable line: {}", file.string(), line_no, why));
    out.dropped_lines.emplace_back(line);
  }
  return out;
}

std::vector<Record> read_jsonl(const std::filesystem::path& file,
                               std::vector<std::string>* warnings) {
  JsonlContent content = read_records(file);
  if (warnings) warnings->insert(warnings->end(), content.warnings.begin(), content.warnings.end());
  return std::move(content.records);
}

void append_dropped_lines(const std::filesystem::path& file, const std::vector<std::string>& lines,
                          std::string_view why) {
  if (lines.empty()) return;
  std::string text = fmt::format("# {} {} line(s) {}\n", utc_now(), lines.size(), why);
  for (const auto& l : lines) text += l + "\n";
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) io_error(file, "cannot open for writing", errno);
  const bool written = write_all(fd, text) && ::fsync(fd) == 0;
  const int saved = errno;
  ::close(fd);
  if (!written) io_error(file, "cannot write", saved);
}

namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int open_for_append(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) io_error(file, "cannot open for writing", errno);
  return fd;
}

// Appends one whole line or nothing: a line cut short by a full disk would end the file in a
// broken record, so the part written is taken back before the error is thrown.
void append_whole(int fd, const std::filesystem::path& file, std::string_view line,
                  const char* what) {
  struct stat st {};
  const off_t before = ::fstat(fd, &st) == 0 ? st.st_size : -1;
  if (!write_all(fd, line)) {
    const int saved = errno;
    if (before >= 0 && ::ftruncate(fd, before) == 0) ::fsync(fd);
    io_error(file, what, saved);
  }
}

}  // namespace

RecordFiles::RecordFiles(std::filesystem::path dir, std::string stem, double sync_interval_s)
    : dir_(std::move(dir)), stem_(std::move(stem)), sync_interval_s_(sync_interval_s) {
  make_folder();
  records_ = read_jsonl(jsonl_path(), nullptr);
  index_records();
  // The files continue as they are: a CSV that does not start with the header of these records
  // (missing, or from another release) is written again once.
  csv_columns_ = csv_columns(records_);
  const std::string expected = csv_header(csv_columns_);
  std::ifstream csv(csv_path(), std::ios::binary);
  std::string header(expected.size(), '\0');
  if (!csv.read(header.data(), static_cast<std::streamsize>(header.size())) || header != expected)
    write_file_atomically(csv_path(), to_csv(records_));
  open_files();
  last_sync_s_ = steady_seconds();
}

RecordFiles::RecordFiles(std::filesystem::path dir, std::string stem, std::vector<Record> kept,
                         double sync_interval_s)
    : dir_(std::move(dir)), stem_(std::move(stem)), sync_interval_s_(sync_interval_s) {
  make_folder();
  start_with(std::move(kept));
}

void RecordFiles::make_folder() const {
  std::error_code ec;
  std::filesystem::create_directories(jsonl_path().parent_path(), ec);
  if (ec)
    throw Refused(
        fmt::format("{}: cannot create: {}", jsonl_path().parent_path().string(), ec.message()));
}

RecordFiles::~RecordFiles() {
  for (const int fd : {jsonl_fd_, csv_fd_}) {
    if (fd < 0) continue;
    ::fsync(fd);
    ::close(fd);
  }
}

void RecordFiles::open_files() {
  for (const int fd : {jsonl_fd_, csv_fd_})
    if (fd >= 0) ::close(fd);
  jsonl_fd_ = csv_fd_ = -1;
  jsonl_fd_ = open_for_append(jsonl_path());
  csv_fd_ = open_for_append(csv_path());
}

void RecordFiles::index_records() {
  index_.clear();
  superseded_ = false;
  for (std::size_t i = 0; i < records_.size(); ++i) {
    const auto [it, fresh] = index_.emplace(text_of(records_[i], "point_id"), i);
    if (!fresh) superseded_ = true;
  }
}

void RecordFiles::rewrite_files() {
  write_file_atomically(jsonl_path(), [&](int fd) {
    return write_lines(fd, "", records_.size(),
                       [&](std::size_t i) { return records_[i].dump() + "\n"; });
  });
  csv_columns_ = csv_columns(records_);
  write_file_atomically(csv_path(), [&](int fd) {
    return write_lines(fd, csv_header(csv_columns_), records_.size(),
                       [&](std::size_t i) { return csv_row(records_[i], csv_columns_); });
  });
  open_files();  // the old descriptors point at the replaced files
  last_sync_s_ = steady_seconds();
}

void RecordFiles::start_with(std::vector<Record> kept) {
  // Records of earlier releases keep fields the table no longer has.
  for (auto& r : kept) r = canonical_record(r, UnknownFields::keep);
  records_ = std::move(kept);
  index_records();
  rewrite_files();
}

void RecordFiles::append(const Record& made) {
  const Record record = canonical_record(made, UnknownFields::refuse);
  append_whole(jsonl_fd_, jsonl_path(), record.dump() + "\n", "cannot append a record");
  const std::string id = text_of(record, "point_id");
  if (const auto it = index_.find(id); it != index_.end()) {
    records_[it->second] = record;
    superseded_ = true;
  } else {
    index_[id] = records_.size();
    records_.push_back(record);
  }
  // The JSONL is the record; a CSV row lost to a full disk here is written again by compact() or
  // by the resume that follows.
  append_whole(csv_fd_, csv_path(), csv_row(record, csv_columns_), "cannot append a row");
  if (steady_seconds() - last_sync_s_ >= sync_interval_s_) sync();
}

void RecordFiles::sync() {
  for (const auto& [fd, path] :
       {std::pair{jsonl_fd_, jsonl_path()}, std::pair{csv_fd_, csv_path()}})
    if (fd >= 0 && ::fsync(fd) != 0) io_error(path, "cannot flush to disk", errno);
  last_sync_s_ = steady_seconds();
}

void RecordFiles::update_records(const std::function<void(std::vector<Record>&)>& update) {
  std::vector<Record> before = records_;
  update(records_);
  if (records_ != before) superseded_ = true;  // the lines on disk are not the records any more
}

void RecordFiles::compact() {
  if (superseded_) {
    rewrite_files();  // atomic and synced
    superseded_ = false;
    return;
  }
  sync();
}

}  // namespace runner
