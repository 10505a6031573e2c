#include "runner/base/durable_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "runner/base/errors.hpp"

namespace runner {

[[noreturn]] void io_error(const std::filesystem::path& p, std::string_view what, int err) {
  throw Refused(fmt::format("{}: {}: {}", p.string(), what, std::strerror(err)));
}

void fsync_dir(const std::filesystem::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

// Writes all of `text` at the end of fd; false with errno set when the system refuses.
bool write_all(int fd, std::string_view text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

void write_file_atomically(const std::filesystem::path& file, std::string_view content) {
  write_file_atomically(file, [&](int fd) { return write_all(fd, content); });
}

void write_file_atomically(const std::filesystem::path& file,
                           const std::function<bool(int fd)>& write) {
  // A name of this process's own: processes that share a file (the shards of a Slurm array
  // copying one calibration into their run's folder) must never rename each other's temporary
  // away ("cannot replace: No such file or directory"); the last rename wins, each one whole.
  const std::filesystem::path tmp = fmt::format("{}.{}.tmp", file.string(), ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) io_error(tmp, "cannot create", errno);
  auto fail = [&](const char* what) {
    const int saved = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    io_error(tmp, what, saved);
  };
  if (!write(fd)) fail("cannot write");
  if (::fsync(fd) != 0) fail("cannot flush to disk");
  ::close(fd);
  if (std::rename(tmp.c_str(), file.c_str()) != 0) {
    const int saved = errno;
    ::unlink(tmp.c_str());
    io_error(file, "cannot replace", saved);
  }
  fsync_dir(file.parent_path());
}

}  // namespace runner
