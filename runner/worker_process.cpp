#include "runner/worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "runner/environment.hpp"
#include "runner/executor.hpp"
#include "runner/interrupt.hpp"

namespace runner {

namespace {

bool g_worker_poisoned = false;

bool write_all(int fd, const std::string& text) {
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

// Blocking line reader of the worker side.
std::optional<std::string> read_line_blocking(int fd, std::string& buffer) {
  while (true) {
    const auto nl = buffer.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer.substr(0, nl);
      buffer.erase(0, nl + 1);
      return line;
    }
    char chunk[4096];
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
}

[[noreturn]] void worker_main(const ExperimentSpec& spec, const std::vector<Point>& points,
                              const Registry& registry, int in_fd, int out_fd) {
  nlohmann::json hello = {{"hello", environment().to_json()}};
  if (!write_all(out_fd, hello.dump() + "\n")) _exit(0);
  std::string buffer;
  while (auto line = read_line_blocking(in_fd, buffer)) {
    std::size_t index = 0;
    try {
      index = nlohmann::json::parse(*line).at("run").get<std::size_t>();
    } catch (const std::exception&) {
      _exit(4);
    }
    nlohmann::ordered_json reply;
    try {
      reply["record"] = run_point(spec, points.at(index), registry);
    } catch (const Interrupted&) {
      write_all(out_fd, "{\"interrupted\":true}\n");
      _exit(0);
    }
    if (g_worker_poisoned) reply["exit"] = true;
    std::fflush(stdout);
    if (!write_all(out_fd, reply.dump() + "\n")) _exit(0);
    if (g_worker_poisoned) _exit(3);
  }
  _exit(0);
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

void mark_worker_poisoned() { g_worker_poisoned = true; }

WorkerProcess::WorkerProcess(const ExperimentSpec& spec, const std::vector<Point>& points,
                             const Registry& registry) {
  int down[2], up[2];
  if (::pipe2(down, O_CLOEXEC) != 0 || ::pipe2(up, O_CLOEXEC) != 0)
    throw std::runtime_error(fmt::format("cannot create a pipe for the worker: {}", std::strerror(errno)));
  std::fflush(stdout);
  std::fflush(stderr);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error(fmt::format("cannot start a worker process: {}", std::strerror(errno)));
  if (pid_ == 0) {
    ::close(down[1]);
    ::close(up[0]);
    worker_main(spec, points, registry, down[0], up[1]);
  }
  ::close(down[0]);
  ::close(up[1]);
  to_worker_ = down[1];
  from_worker_ = up[0];
  bool timed_out = false;
  // CUDA initialisation and the first touch of a GPU can take several seconds.
  if (auto line = read_line(120.0, &timed_out)) {
    try {
      hello_ = nlohmann::json::parse(*line).at("hello");
    } catch (const std::exception&) {
    }
  }
}

WorkerProcess::~WorkerProcess() { stop(); }

void WorkerProcess::stop() {
  if (to_worker_ >= 0) ::close(to_worker_);
  if (from_worker_ >= 0) ::close(from_worker_);
  to_worker_ = from_worker_ = -1;
  if (pid_ > 0) {
    // Closing its input ends an idle worker; one that does not end soon is killed.
    for (int i = 0; i < 50; ++i) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      ::usleep(20000);
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
}

std::optional<std::string> WorkerProcess::read_line(double timeout_s, bool* timed_out) {
  *timed_out = false;
  const auto t0 = std::chrono::steady_clock::now();
  while (true) {
    const auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    const double left = timeout_s - seconds_since(t0);
    if (left <= 0) {
      *timed_out = true;
      return std::nullopt;
    }
    pollfd pfd{from_worker_, POLLIN, 0};
    // Wake up at least every 100 ms so that a stop request is noticed promptly.
    const int r = ::poll(&pfd, 1, static_cast<int>(std::min(left, 0.1) * 1000) + 1);
    if (r < 0 && errno != EINTR) return std::nullopt;
    if (interrupt_requested() && !forwarded_stop_ && pid_ > 0) {
      ::kill(pid_, SIGTERM);
      forwarded_stop_ = true;
      return std::string();  // let the caller shorten its deadline
    }
    if (r <= 0) continue;
    char chunk[65536];
    const ssize_t n = ::read(from_worker_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;  // EOF: the worker is gone
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

std::string WorkerProcess::reap() {
  int status = 0;
  std::string how = "the worker ended";
  if (pid_ > 0 && ::waitpid(pid_, &status, 0) == pid_) {
    if (WIFSIGNALED(status)) {
      const int sig = WTERMSIG(status);
      const char* abbrev = sigabbrev_np(sig);
      how = fmt::format("killed by SIG{} ({})", abbrev ? abbrev : std::to_string(sig), strsignal(sig));
    } else if (WIFEXITED(status)) {
      how = fmt::format("the worker exited with code {}", WEXITSTATUS(status));
    }
  }
  pid_ = -1;
  return how;
}

WorkerProcess::Outcome WorkerProcess::run(std::size_t index, double timeout_s, double grace_s) {
  Outcome out;
  if (pid_ <= 0 || !write_all(to_worker_, fmt::format("{{\"run\":{}}}\n", index))) {
    out.kind = Outcome::crashed;
    out.cause = pid_ > 0 ? "the worker stopped reading: " + reap() : "no worker";
    return out;
  }
  const auto t0 = std::chrono::steady_clock::now();
  double deadline = timeout_s;
  while (true) {
    bool timed_out = false;
    auto line = read_line(deadline - seconds_since(t0), &timed_out);
    if (line && line->empty()) {  // a stop was forwarded: give the point grace_s to wind up
      deadline = std::min(deadline, seconds_since(t0) + grace_s);
      continue;
    }
    if (timed_out) {
      ::kill(pid_, SIGKILL);
      reap();
      out.kind = forwarded_stop_ ? Outcome::interrupted : Outcome::timed_out;
      out.cause = fmt::format("timed out after {:g} s", timeout_s);
      return out;
    }
    if (!line) {
      // A worker that ends once a stop was forwarded was stopped, not crashed: a terminal's Ctrl-C
      // reaches it as well as the forwarded SIGTERM, and a SIGINT after another signal exits at
      // once with 130 (interrupt.hpp). Its point is left for --resume instead of recorded failed.
      out.kind = forwarded_stop_ ? Outcome::interrupted : Outcome::crashed;
      out.cause = reap();
      return out;
    }
    try {
      auto msg = nlohmann::ordered_json::parse(*line);
      if (msg.contains("interrupted")) {
        reap();
        out.kind = Outcome::interrupted;
        return out;
      }
      out.kind = Outcome::finished;
      out.record = std::move(msg.at("record"));
      if (msg.value("exit", false)) reap();  // its CUDA context is unusable: it exits by itself
      return out;
    } catch (const std::exception& e) {
      ::kill(pid_, SIGKILL);
      out.kind = Outcome::crashed;
      out.cause = fmt::format("unreadable reply from the worker ({}): {}", e.what(), reap());
      return out;
    }
  }
}

}  // namespace runner
