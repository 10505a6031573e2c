#include "runner/base/child_command.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

extern char** environ;

namespace runner {

namespace {

// A pipe whose ends close themselves; the read end is kept by the parent.
struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (::pipe2(fd, O_CLOEXEC) != 0)
      throw std::runtime_error(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  }
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  void close_write() {
    ::close(fd[1]);
    fd[1] = -1;
  }
};

int wait_for_exit(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

CommandOutput run_child_command(const std::vector<std::string>& argv, double timeout_s) {
  if (argv.empty()) throw std::invalid_argument("run_child_command: empty command");
  Pipe out, err;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], STDERR_FILENO);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    if (rc == ENOENT) throw CommandNotFound(fmt::format("{}: command not found", argv[0]));
    throw std::runtime_error(fmt::format("cannot run {}: {}", argv[0], std::strerror(rc)));
  }
  out.close_write();
  err.close_write();

  CommandOutput result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  pollfd fds[2] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_streams = 2;
  int signals_sent = 0;
  while (open_streams > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      // Past the deadline: ask politely once, then insist a few seconds later.
      result.timed_out = true;
      // A grandchild may hold the pipes open after the command died: stop reading then.
      if (signals_sent > 3) break;
      ::kill(pid, signals_sent++ == 0 ? SIGTERM : SIGKILL);
    }
    const int ready = ::poll(
        fds, 2,
        left.count() <= 0 ? 2000 : static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buffer[4096];
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;  // the Pipe closes it
        --open_streams;
      }
    }
  }
  result.exit_code = wait_for_exit(pid);
  return result;
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& word : argv) {
    if (!line.empty()) line += ' ';
    const bool plain =
        !word.empty() && word.find_first_not_of(
                             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                             "-_./=:,%@+") == std::string::npos;
    if (plain) {
      line += word;
    } else {
      line += '\'';
      for (char c : word) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
      line += '\'';
    }
  }
  return line;
}

}  // namespace runner
