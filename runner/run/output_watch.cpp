#include "runner/run/output_watch.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace runner {

OutputWatch::OutputWatch(const std::filesystem::path& dir)
    : dir_(dir), fd_(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)) {}

OutputWatch::~OutputWatch() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<OutputWatch::Lost> OutputWatch::check() const {
  if (fd_ < 0) return std::nullopt;
  struct stat held {
  }, named{};
  if (::fstat(fd_, &held) != 0) return std::nullopt;
  if (::stat(dir_.c_str(), &named) == 0 && named.st_dev == held.st_dev &&
      named.st_ino == held.st_ino)
    return std::nullopt;
  Lost lost;
  // A deleted folder has no links left; a moved one is where the kernel's name for it says.
  std::error_code ec;
  const auto now = std::filesystem::read_symlink(fmt::format("/proc/self/fd/{}", fd_), ec);
  if (held.st_nlink == 0 || ec || now.string().ends_with(" (deleted)"))
    lost.deleted = true;
  else
    lost.moved_to = now;
  return lost;
}

}  // namespace runner
