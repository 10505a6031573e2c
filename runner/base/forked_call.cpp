#include "runner/base/forked_call.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "runner/base/durable_file.hpp"
#include "runner/base/errors.hpp"

namespace runner {

std::string ForkedCallResult::how_it_ended() const {
  if (hung) return "no answer within the time allowed";
  if (signal) {
    const char* what = ::strsignal(signal);
    return fmt::format("killed by signal {} ({})", signal, what ? what : "?");
  }
  return fmt::format("exit {}", exit_code);
}

ForkedCallResult run_forked(const std::function<std::string()>& body, int timeout_s) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw Refused(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw Refused(fmt::format("cannot start a child process: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    std::string text;
    try {
      text = body();
    } catch (...) {
      ::_exit(3);
    }
    write_all(fds[1], text);
    ::_exit(0);
  }
  ::close(fds[1]);
  ForkedCallResult result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      result.hung = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    char chunk[4096];
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n > 0) {
      result.text.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // EOF: the child is done
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status) && !result.hung) result.signal = WTERMSIG(status);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  result.finished = !result.hung && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return result;
}

}  // namespace runner
