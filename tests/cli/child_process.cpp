#include "tests/cli/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace runner::cli_testing {

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int counter() {
  static int n = 0;
  return ++n;
}

}  // namespace

std::string runner_binary() {
  return RUNNER_BINARY;
}
std::string runner_test_binary() {
  return RUNNER_TEST_BINARY;
}
std::string runner_binary_for(const SpawnOptions& options) {
  return options.env.count("RUNNER_FAULT_INJECTION") ? runner_test_binary() : runner_binary();
}
std::filesystem::path source_dir() {
  return RUNNER_SOURCE_DIR;
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv,
                           const std::filesystem::path& log_dir, const SpawnOptions& options) {
  const int n = counter();
  out_file_ = log_dir / ("child" + std::to_string(n) + ".out");
  err_file_ = log_dir / ("child" + std::to_string(n) + ".err");

  // Everything the child needs is prepared before fork(): after it, only async-signal-safe calls.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    if (!options.env.count(name)) env_strings.push_back(entry);
  }
  for (const auto& [name, value] : options.env) env_strings.push_back(name + "=" + value);
  std::vector<char*> envp, args;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy) args.push_back(s.data());
  args.push_back(nullptr);
  const std::string cwd = options.cwd.string();

  const int out_fd = ::open(out_file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int err_fd = ::open(err_file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out_fd < 0 || err_fd < 0) throw std::runtime_error("cannot create " + out_file_.string());

  started_ = now_s();
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid_ == 0) {
    if (options.new_process_group) ::setpgid(0, 0);
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    // A test runner may block or ignore signals; the child must start with the defaults.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ}) ::signal(sig, SIG_DFL);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::execve(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  if (options.new_process_group) ::setpgid(pid_, pid_);  // either side may win the race
  ::close(out_fd);
  ::close(err_fd);
}

ChildProcess::~ChildProcess() {
  if (!reaped_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

void ChildProcess::signal(int sig) const {
  ::kill(pid_, sig);
}
void ChildProcess::signal_group(int sig) const {
  ::kill(-pid_, sig);
}

bool ChildProcess::running() {
  if (reaped_) return false;
  siginfo_t info{};
  // WNOWAIT: look without reaping, so that wait() still gets the exit status.
  if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0)
    return false;
  return info.si_pid == 0;
}

ProcessResult ChildProcess::wait(double timeout_s) {
  ProcessResult result;
  int status = 0;
  const double deadline = started_ + timeout_s;
  while (true) {
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) break;
    if (r < 0 && errno != EINTR)
      throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    if (now_s() > deadline) {
      result.timed_out = true;
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  reaped_ = true;
  result.seconds = now_s() - started_;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  result.out = slurp(out_file_);
  result.err = slurp(err_file_);
  std::error_code ec;
  std::filesystem::remove(out_file_, ec);
  std::filesystem::remove(err_file_, ec);
  return result;
}

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s,
                          const SpawnOptions& options) {
  // One folder per test process for the output files, removed when the process ends.
  struct LogDir {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("runner_cli_logs_" + std::to_string(::getpid()));
    LogDir() { std::filesystem::create_directories(path); }
    ~LogDir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const LogDir logs;
  ChildProcess child(argv, logs.path, options);
  return child.wait(timeout_s);
}

ProcessResult run_runner(const std::vector<std::string>& args, double timeout_s,
                         const SpawnOptions& options) {
  std::vector<std::string> argv = {runner_binary_for(options)};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, timeout_s, options);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace runner::cli_testing
