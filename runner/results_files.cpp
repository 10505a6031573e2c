#include "runner/results_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace runner {

namespace {
[[noreturn]] void io_error(const std::filesystem::path& p, std::string_view what) {
  throw std::runtime_error(fmt::format("{}: {}: {}", p.string(), what, std::strerror(errno)));
}

void fsync_dir(const std::filesystem::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}
}  // namespace

void write_file_atomically(const std::filesystem::path& file, std::string_view content) {
  const std::filesystem::path tmp = file.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) io_error(tmp, "cannot create");
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int saved = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      errno = saved;
      io_error(tmp, "cannot write");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int saved = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    errno = saved;
    io_error(tmp, "cannot flush to disk");
  }
  ::close(fd);
  if (std::rename(tmp.c_str(), file.c_str()) != 0) io_error(file, "cannot replace");
  fsync_dir(file.parent_path());
}

std::vector<Record> read_jsonl(const std::filesystem::path& file, std::vector<std::string>* warnings) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<Record> records;
  std::size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    const std::size_t end = text.find('\n', pos);
    ++line_no;
    if (end == std::string::npos) {
      if (warnings)
        warnings->push_back(fmt::format("{}:{}: dropped a truncated last record ({} bytes without a newline)",
                                        file.string(), line_no, text.size() - pos));
      break;
    }
    const std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    if (line.empty()) continue;
    try {
      records.push_back(Record::parse(line));
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(fmt::format("{}:{}: not a JSON record: {}", file.string(), line_no, e.what()));
    }
  }
  return records;
}

RecordFiles::RecordFiles(std::filesystem::path dir, std::string stem)
    : dir_(std::move(dir)), stem_(std::move(stem)) {
  std::error_code ec;
  std::filesystem::create_directories(jsonl_path().parent_path(), ec);
  if (ec) throw std::runtime_error(fmt::format("{}: cannot create: {}", jsonl_path().parent_path().string(), ec.message()));
  open_jsonl("a");
}

RecordFiles::~RecordFiles() {
  if (jsonl_) std::fclose(jsonl_);
}

void RecordFiles::open_jsonl(const char* mode) {
  if (jsonl_) std::fclose(jsonl_);
  jsonl_ = std::fopen(jsonl_path().c_str(), mode);
  if (!jsonl_) io_error(jsonl_path(), "cannot open for writing");
}

void RecordFiles::start_with(std::vector<Record> kept) {
  std::string text;
  for (const auto& r : kept) text += r.dump() + "\n";
  write_file_atomically(jsonl_path(), text);
  open_jsonl("a");
  records_ = std::move(kept);
  write_file_atomically(csv_path(), to_csv(records_));
}

void RecordFiles::append(const Record& record) {
  const std::string line = record.dump() + "\n";
  if (std::fwrite(line.data(), 1, line.size(), jsonl_) != line.size() || std::fflush(jsonl_) != 0)
    io_error(jsonl_path(), "cannot append a record");
  if (::fsync(::fileno(jsonl_)) != 0) io_error(jsonl_path(), "cannot flush to disk");
  records_.push_back(record);
  write_file_atomically(csv_path(), to_csv(records_));
}

}  // namespace runner
