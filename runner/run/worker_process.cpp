#include "runner/run/worker_process.hpp"
#include "runner/base/durable_file.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "runner/base/errors.hpp"
#include "runner/base/interrupt.hpp"
#include "runner/base/task_limit.hpp"
#include "runner/measure/environment.hpp"
#include "runner/measure/gpu_devices.hpp"
#include "runner/run/point_runner.hpp"
#include "runner/run/running_clock.hpp"

namespace runner {

namespace {

bool g_worker_poisoned = false;

// The parent's ends of the pipes of every live worker. fork() copies every descriptor (O_CLOEXEC
// acts only on exec), so a worker started after another held the write end of that one's request
// pipe: closing it in the parent then did not end the worker's input, and each worker but the
// last started outlived its shutdown by the whole wait and was killed (1 s per worker at the end
// of every run, one after another: 4 s on 4 GPUs). A new worker closes them first. A fixed array:
// the child reads it between fork() and its first allocation.
constexpr int kMaxPipeEnds = 1024;
int g_parent_pipe_ends[kMaxPipeEnds];
int g_parent_pipe_end_count = 0;

void keep_from_later_workers(int fd) {
  if (g_parent_pipe_end_count < kMaxPipeEnds) g_parent_pipe_ends[g_parent_pipe_end_count++] = fd;
}

void close_pipe_end(int fd) {
  for (int i = 0; i < g_parent_pipe_end_count; ++i)
    if (g_parent_pipe_ends[i] == fd) {
      g_parent_pipe_ends[i] = g_parent_pipe_ends[--g_parent_pipe_end_count];
      break;
    }
  ::close(fd);
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

// The worker's own guard against a point that runs on past its time limit while the parent does
// not stop it (the parent stopped, stuck or gone), and against outliving the parent.
class WorkerWatchdog {
 public:
  explicit WorkerWatchdog(pid_t parent) : parent_(parent) {
    std::thread([this] { watch(); }).detach();
  }
  void arm(double limit_s) {
    limit_s_.store(limit_s);
    epoch_.fetch_add(1);
  }
  void disarm() {
    limit_s_.store(0);
    epoch_.fetch_add(1);
  }

 private:
  [[noreturn]] void watch() {
    RunningClock clock;
    std::uint64_t seen = 0;
    double start = 0;
    while (true) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const double now = clock.seconds();
      if (::getppid() != parent_) _exit(kWorkerOverranExit);  // orphaned: nobody wants the record
      if (const std::uint64_t e = epoch_.load(); e != seen) {
        seen = e;
        start = now;
      }
      const double limit = limit_s_.load();
      if (limit > 0 && now - start > limit) {
        const char msg[] =
            "runner worker: the point ran past its time limit and the runner did "
            "not stop it; the worker ends itself\n";
        [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
        _exit(kWorkerOverranExit);
      }
    }
  }
  pid_t parent_;
  std::atomic<double> limit_s_{0};
  std::atomic<std::uint64_t> epoch_{0};
};

// The parent kills a point at timeout_s; the worker waits a little longer before doing it itself,
// so that the parent's record ("timed out after N s") is the one users normally see.
double worker_limit(double timeout_s) {
  return timeout_s + 5.0 + 0.05 * timeout_s;
}

[[noreturn]] void worker_main(const ExperimentSpec& spec, const std::vector<Point>& points,
                              const Registry& registry, int in_fd, int out_fd, pid_t parent) {
  std::optional<WorkerWatchdog> watchdog;
  try {
    watchdog.emplace(parent);
  } catch (const std::exception& e) {
    // Never unwind into the parent's main from a forked worker. Without its watchdog thread (the
    // per-user process limit, say) a worker does not start; the parent names the cause.
    const std::string why = fmt::format("runner worker: cannot start its watchdog thread: {}{}\n",
                                        e.what(), task_limit_note());
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, why.data(), why.size());
    _exit(kWorkerCannotStartExit);
  }
  nlohmann::json hello = {{"hello", environment().to_json()}};
  if (!write_all(out_fd, hello.dump() + "\n")) _exit(0);
  std::string buffer;
  while (auto line = read_line_blocking(in_fd, buffer)) {
    std::size_t index = 0;
    double timeout_s = 0;
    try {
      const auto request = nlohmann::json::parse(*line);
      index = request.at("run").get<std::size_t>();
      timeout_s = request.value("timeout_s", 0.0);
    } catch (const std::exception&) {
      _exit(4);
    }
    if (timeout_s > 0) watchdog->arm(worker_limit(timeout_s));
    nlohmann::ordered_json reply;
    try {
      reply["record"] = run_point(spec, points.at(index), registry);
    } catch (const Interrupted&) {
      write_all(out_fd, fmt::format("{{\"interrupted\":{}}}\n", interrupt_signal()));
      _exit(0);
    }
    watchdog->disarm();
    if (g_worker_poisoned) reply["exit"] = true;
    std::fflush(stdout);
    if (!write_all(out_fd, reply.dump() + "\n")) _exit(0);
    if (g_worker_poisoned) _exit(3);
  }
  _exit(0);
}

}  // namespace

void mark_worker_poisoned() {
  g_worker_poisoned = true;
}

WorkerProcess::WorkerProcess(const ExperimentSpec& spec, const std::vector<Point>& points,
                             const Registry& registry, const WorkerPlacement& placement,
                             bool wait_for_hello) {
  int down[2], up[2];
  if (::pipe2(down, O_CLOEXEC) != 0 || ::pipe2(up, O_CLOEXEC) != 0)
    throw std::runtime_error(
        fmt::format("cannot create a pipe for the worker: {}", std::strerror(errno)));
  // Prepared before fork(): the child only calls what is safe there.
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (int c : placement.cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &cpus);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    // errno first: task_limit_note() scans /proc, where a process that ends meanwhile sets ENOENT
    // (seen as "cannot start a worker process: No such file or directory").
    const int fork_errno = errno;
    throw Refused(fmt::format("cannot start a worker process: {}{}", std::strerror(fork_errno),
                              task_limit_note()));
  }
  if (pid_ == 0) {
    // Dies with the parent, however the parent ends (kill -9 included); and if the parent died
    // before this line ran, now.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(kWorkerOverranExit);
    for (int i = 0; i < g_parent_pipe_end_count; ++i)
      if (const int fd = g_parent_pipe_ends[i]; fd != down[0] && fd != up[1]) ::close(fd);
    // Its GPU (read by the GPU runtime when the worker first touches it, in its hello) and its
    // cores, before anything else runs.
    if (placement.visible_gpu)
      ::setenv(placement.visibility_variable.c_str(), placement.visible_gpu->c_str(), 1);
    if (!placement.cpus.empty()) ::sched_setaffinity(0, sizeof cpus, &cpus);
    if (placement.visible_gpu && fake_gpu_fails_at_start(*placement.visible_gpu))
      _exit(kWorkerCannotStartExit);  // tests only (made-up GPUs)
    // The parent's stop requests reach the worker as signals; none is pending in a new worker.
    reset_interrupt_state();
    ::close(down[1]);
    ::close(up[0]);
    worker_main(spec, points, registry, down[0], up[1], parent);
  }
  ::close(down[0]);
  ::close(up[1]);
  to_worker_ = down[1];
  from_worker_ = up[0];
  keep_from_later_workers(to_worker_);
  keep_from_later_workers(from_worker_);
  if (wait_for_hello) wait_hello();
}

const std::optional<nlohmann::json>& WorkerProcess::hello() {
  if (!hello_waited_) wait_hello();
  return hello_;
}

void WorkerProcess::wait_hello() {
  hello_waited_ = true;
  // CUDA initialisation and the first touch of a GPU can take several seconds. A stop request
  // meanwhile ends the wait (the caller sees no hello, and interrupt_requested()).
  constexpr double kHelloTimeout = 120.0;
  RunningClock clock;
  while (clock.seconds() < kHelloTimeout && !interrupt_requested()) {
    bool idle = false;
    const auto line = read_line(100, &idle);
    if (idle) continue;
    if (line) {
      try {
        hello_ = nlohmann::json::parse(*line).at("hello");
        hello_seconds_ =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started_at_).count();
      } catch (const std::exception&) {
      }
    }
    break;
  }
}

WorkerProcess::~WorkerProcess() {
  stop();
}

bool WorkerProcess::stop() {
  close_input();
  return end_by(std::chrono::steady_clock::now() + kEndGrace);
}

void WorkerProcess::close_input() {
  if (to_worker_ >= 0) close_pipe_end(to_worker_);
  if (from_worker_ >= 0) close_pipe_end(from_worker_);
  to_worker_ = from_worker_ = -1;
}

bool WorkerProcess::end_by(std::chrono::steady_clock::time_point deadline) {
  if (pid_ <= 0) return true;
  // Closing its input ends an idle worker; one that has not ended by the deadline is killed.
  while (true) {
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    ::usleep(5000);
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
  return false;
}

int stop_workers(const std::vector<WorkerProcess*>& workers) {
  // Every input closed first, then one deadline for all: a GPU worker's exit releases its
  // context (every buffer, the libraries' handles), a few hundred milliseconds that the workers
  // of a node spend at once rather than one after another.
  for (WorkerProcess* w : workers)
    if (w) w->close_input();
  const auto deadline = std::chrono::steady_clock::now() + WorkerProcess::kEndGrace;
  int killed = 0;
  for (WorkerProcess* w : workers)
    if (w && !w->end_by(deadline)) ++killed;
  return killed;
}

std::optional<std::string> WorkerProcess::read_line(int poll_ms, bool* idle) {
  *idle = false;
  while (true) {
    const auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    pollfd pfd{from_worker_, POLLIN, 0};
    const int r = ::poll(&pfd, 1, poll_ms);
    if (r < 0 && errno != EINTR) return std::nullopt;
    if (r <= 0) {
      *idle = true;
      return std::nullopt;
    }
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
  last_exit_code_ = -1;
  if (pid_ > 0 && ::waitpid(pid_, &status, 0) == pid_) {
    if (WIFSIGNALED(status)) {
      const int sig = WTERMSIG(status);
      how = fmt::format("killed by {} ({})", signal_name(sig), strsignal(sig));
    } else if (WIFEXITED(status)) {
      last_exit_code_ = WEXITSTATUS(status);
      how = fmt::format("the worker exited with code {}", last_exit_code_);
    }
  }
  pid_ = -1;
  return how;
}

WorkerProcess::Outcome WorkerProcess::kill_now(Outcome::Kind kind, std::string cause) {
  ::kill(pid_, SIGKILL);
  reap();
  Outcome out;
  out.kind = kind;
  out.cause = std::move(cause);
  return out;
}

void WorkerProcess::start(std::size_t index, double timeout_s, double grace_s) {
  in_flight_ = InFlight{};
  in_flight_->timeout_s = timeout_s;
  in_flight_->grace_s = grace_s;
  in_flight_->deadline = timeout_s;
  if (pid_ <= 0 ||
      !write_all(to_worker_, fmt::format("{{\"run\":{},\"timeout_s\":{}}}\n", index, timeout_s))) {
    Outcome out;
    out.kind = Outcome::crashed;
    out.cause = pid_ > 0 ? "the worker stopped reading: " + reap() : "no worker";
    in_flight_->immediate = std::move(out);
  }
}

std::optional<WorkerProcess::Outcome> WorkerProcess::poll(int poll_ms) {
  if (!in_flight_) return std::nullopt;
  auto done = [&](Outcome out) -> std::optional<Outcome> {
    in_flight_.reset();
    return out;
  };
  if (in_flight_->immediate) return done(std::move(*in_flight_->immediate));
  InFlight& f = *in_flight_;
  bool idle = false;
  const auto line = read_line(poll_ms, &idle);
  // Running time of the point: not counted while this process or the worker is stopped.
  const double now = f.clock.seconds(/*count_gap=*/!process_stopped(pid_));
  if (idle) {
    if (interrupt_requested() && !forwarded_stop_) {
      ::kill(pid_, SIGTERM);  // abandon the point between samples
      forwarded_stop_ = true;
      f.deadline = std::min(f.deadline, now + f.grace_s);
    }
    if (stop_now_requested()) return done(kill_now(Outcome::interrupted, "stopped at once"));
    if (now >= f.deadline)
      return done(kill_now(forwarded_stop_ ? Outcome::interrupted : Outcome::timed_out,
                           fmt::format("timed out after {:g} s", f.timeout_s)));
    return std::nullopt;
  }
  Outcome out;
  if (!line) {
    // A worker that ends once a stop was forwarded was stopped, not crashed: a terminal's Ctrl-C
    // reaches it as well as the forwarded SIGTERM. Its point is left for --resume.
    out.cause = reap();
    out.kind = forwarded_stop_ ? Outcome::interrupted : Outcome::crashed;
    if (last_exit_code_ == kWorkerOverranExit && !forwarded_stop_) {
      out.kind = Outcome::timed_out;
      out.cause = fmt::format("timed out after {:g} s (the worker stopped itself)", f.timeout_s);
    }
    return done(std::move(out));
  }
  try {
    auto msg = nlohmann::ordered_json::parse(*line);
    if (msg.contains("interrupted")) {
      reap();
      out.kind = Outcome::interrupted;
      out.signal = msg["interrupted"].is_number_integer() ? msg["interrupted"].get<int>() : 0;
      return done(std::move(out));
    }
    out.kind = Outcome::finished;
    out.record = std::move(msg.at("record"));
    if (msg.value("exit", false)) reap();  // its CUDA context is unusable: it exits by itself
    return done(std::move(out));
  } catch (const std::exception& e) {
    ::kill(pid_, SIGKILL);
    out.kind = Outcome::crashed;
    out.cause = fmt::format("unreadable reply from the worker ({}): {}", e.what(), reap());
    return done(std::move(out));
  }
}

WorkerProcess::Outcome WorkerProcess::run(std::size_t index, double timeout_s, double grace_s) {
  start(index, timeout_s, grace_s);
  while (true)
    if (auto out = poll(100)) return std::move(*out);
}

}  // namespace runner
