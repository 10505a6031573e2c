#include "runner/base/diagnostic_stream.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <ctime>

namespace runner {

namespace {

std::atomic<long> g_lost{0};

// write(2) of all of `size` bytes to fd 2; false when the descriptor refuses (EPIPE, ENOSPC, EIO).
bool write_stderr(const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(STDERR_FILENO, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// A write to a pipe without a reader raises SIGPIPE, whose default ends the process. Blocked for
// this thread during the write, and a SIGPIPE the write made pending is taken back, so that the
// process's own disposition (a command writing data to stdout keeps the default) is untouched.
ssize_t write_diagnostic(void*, const char* data, std::size_t size) {
  const int saved_errno = errno;
  sigset_t pipe_only, previous;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  sigset_t pending;
  sigemptyset(&pending);
  const bool was_pending = ::sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe_only, &previous);
  if (!write_stderr(data, size)) {
    g_lost.fetch_add(static_cast<long>(size));
    if (errno == EPIPE && !was_pending) {
      const timespec now{0, 0};
      while (::sigtimedwait(&pipe_only, nullptr, &now) < 0 && errno == EINTR) {
      }
    }
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  errno = saved_errno;
  return static_cast<ssize_t>(size);  // always "written": a diagnostic is never an error
}

}  // namespace

void make_diagnostics_unfailing() {
  static bool done = false;
  if (done || ::isatty(STDERR_FILENO)) return;
  cookie_io_functions_t io{};
  io.write = write_diagnostic;
  FILE* stream = ::fopencookie(nullptr, "w", io);
  if (!stream) return;  // keep the plain stderr: still better than no diagnostics
  std::setvbuf(stream, nullptr, _IONBF, 0);  // unbuffered, as stderr is
  std::fflush(stderr);
  stderr = stream;
  done = true;
}

long diagnostics_lost() {
  return g_lost.load();
}

}  // namespace runner
