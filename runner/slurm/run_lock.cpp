#include "runner/slurm/run_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace runner::slurm {

RunLock::RunLock(const std::filesystem::path& run_dir) {
  // The folder is never created here: a mistyped DIR must be an error, not a new directory.
  const auto file = run_dir / "slurm" / ".lock";
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0 && errno == ENOENT)
    throw std::runtime_error(fmt::format(
        "{}: no slurm/ folder: not a results directory made by `runner submit`", run_dir.string()));
  if (fd_ < 0)
    throw std::runtime_error(
        fmt::format("{}: cannot open: {}", file.string(), std::strerror(errno)));
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    // File systems without locks (rare): go on unprotected rather than refuse to work.
    if (errno == ENOLCK || errno == EOPNOTSUPP) break;
    const int saved = errno;
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error(
        fmt::format("{}: cannot lock: {}", file.string(), std::strerror(saved)));
  }
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

}  // namespace runner::slurm
