#include "runner/run/output_dir.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "runner/base/errors.hpp"
#include "runner/measure/environment.hpp"

namespace runner {

namespace {

std::string read_small_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::ostringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

// UTC time as 20261124T101530.123Z: sorts like the time, safe in a file name.
std::string compact_utc_millis() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%S", &tm);
  return fmt::format("{}.{:03d}Z", buf, ms);
}

}  // namespace

FolderLock::FolderLock(const std::filesystem::path& lock_file, std::string_view what) {
  fd_ = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw Refused(fmt::format("{}: cannot create the lock file: {}", lock_file.string(),
                              std::strerror(errno)));
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    const int saved = errno;
    ::close(fd_);
    fd_ = -1;
    if (saved == EWOULDBLOCK) {
      const std::string holder = read_small_file(lock_file);
      throw Refused(fmt::format(
          "{} is in use by another runner ({}): two runners must not write one results folder. "
          "Wait for it to end, or choose another --out",
          lock_file.parent_path().string(), holder.empty() ? "holder unknown" : holder));
    }
    // A file system without locks (rare): going on unprotected would be the silent race this
    // lock exists to prevent.
    throw Refused(fmt::format("{}: cannot lock: {}", lock_file.string(), std::strerror(saved)));
  }
  const std::string holder =
      fmt::format("{} pid {} on {} since {}", what, ::getpid(), environment().host, utc_now());
  if (::ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] const ssize_t n = ::pwrite(fd_, holder.data(), holder.size(), 0);
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

FolderLock::FolderLock(FolderLock&& other) noexcept : fd_(other.fd_) {
  other.fd_ = -1;
}

FolderLock& FolderLock::operator=(FolderLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

std::filesystem::path shard_lock_file(const std::filesystem::path& dir, int shard) {
  return dir / "shards" / fmt::format("{}.lock", shard);
}

std::filesystem::path make_unique_run_dir(const std::filesystem::path& parent,
                                          std::string_view host) {
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) throw Refused(fmt::format("{}: cannot create: {}", parent.string(), ec.message()));
  const std::string base = fmt::format("{}-{}", compact_utc_millis(), host);
  for (int attempt = 1; attempt <= 1000; ++attempt) {
    const auto dir = parent / (attempt == 1 ? base : fmt::format("{}-{}", base, attempt));
    if (::mkdir(dir.c_str(), 0755) == 0) return dir;
    if (errno != EEXIST)
      throw Refused(fmt::format("{}: cannot create: {}", dir.string(), std::strerror(errno)));
  }
  throw Refused(fmt::format("{}: no free folder name after 1000 tries", (parent / base).string()));
}

ClaimedOutput claim_output_dir(const std::filesystem::path& dir, const std::string& stem,
                               bool resume, std::string_view owner) {
  ClaimedOutput claim;
  claim.dir = dir;
  std::error_code ec;
  const auto status = std::filesystem::status(dir, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_directory(status))
    throw UsageError(fmt::format("--out {}: exists and is not a folder", dir.string()));
  if (std::filesystem::is_symlink(std::filesystem::symlink_status(dir, ec)) &&
      !std::filesystem::exists(status)) {
    const auto target = std::filesystem::read_symlink(dir, ec);
    throw Refused(fmt::format(
        "{}: cannot create: it is a symbolic link to {}, which does not exist; create {} first, "
        "or choose another --out",
        dir.string(), target.string(), target.string()));
  }
  const bool shard = stem != "records";
  const auto lock_dir = shard ? (dir / stem).parent_path() : dir;
  std::filesystem::create_directories(lock_dir, ec);
  if (ec) throw Refused(fmt::format("{}: cannot create: {}", lock_dir.string(), ec.message()));
  if (::access(lock_dir.c_str(), W_OK | X_OK) != 0)
    throw Refused(
        fmt::format("{}: cannot write there: {}", lock_dir.string(), std::strerror(errno)));

  // The lock first, then the look inside: what is seen cannot change under the lock.
  claim.lock = FolderLock(shard ? dir / (stem + ".lock") : dir / kLockFileName,
                          shard ? "shard " + stem.substr(stem.find('/') + 1) : std::string(owner));

  std::vector<std::string> found;
  if (shard) {
    for (const char* ext : {".jsonl", ".csv", ".manifest.json"})
      if (std::filesystem::exists(dir / (stem + ext), ec)) found.push_back(stem + ext);
  } else {
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (name != kLockFileName) found.push_back(name);
    }
    if (ec) throw Refused(fmt::format("{}: cannot read: {}", dir.string(), ec.message()));
  }
  std::sort(found.begin(), found.end());
  claim.had_results = !found.empty();
  if (claim.had_results && !resume) {
    std::string listed;
    for (std::size_t i = 0; i < found.size() && i < 4; ++i) listed += (i ? ", " : "") + found[i];
    if (found.size() > 4) listed += fmt::format(" and {} more", found.size() - 4);
    throw UsageError(fmt::format(
        "--out {} is not empty (it holds {}): a run never overwrites results. Add --resume to "
        "continue the run that is there, or choose another --out",
        dir.string(), listed));
  }
  return claim;
}

std::string shell_quote(std::string_view word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyz"
                                          "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789@%+=:,./-_") == std::string_view::npos;
  if (plain) return std::string(word);
  std::string out = "'";
  for (const char c : word) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

}  // namespace runner
