#pragma once
// Spawning the `runner` binary from a test: output captured in files (no pipe can fill up and
// block the child), a deadline, and signals on demand.
#include <sys/types.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace runner::cli_testing {

// Path of the runner binary under test and of the source tree (compile definitions).
std::string runner_binary();
// The test-only binary with the fault-injection kernel (tests/fault_kernel/), enabled by
// RUNNER_FAULT_INJECTION=1 in its environment.
std::string runner_test_binary();
std::filesystem::path source_dir();

struct ProcessResult {
  int exit_code = -1;   // -1 when killed by a signal
  int term_signal = 0;  // the signal that killed it, 0 when it exited
  bool timed_out = false;
  double seconds = 0;
  std::string out, err;
};

struct SpawnOptions {
  std::filesystem::path cwd;               // empty: the test's own
  std::map<std::string, std::string> env;  // added to (or replacing in) the test's environment
  bool new_process_group = false;          // for signals to the whole group, as a terminal sends
};

class ChildProcess {
 public:
  // Starts argv[0] with the rest as arguments; stdout and stderr go to files in `log_dir`.
  ChildProcess(const std::vector<std::string>& argv, const std::filesystem::path& log_dir,
               const SpawnOptions& options = {});
  ~ChildProcess();  // kills and reaps a child still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int sig) const;        // to the child
  void signal_group(int sig) const;  // to its process group (needs new_process_group)
  // Waits up to timeout_s; on timeout kills it (SIGKILL) and says so.
  ProcessResult wait(double timeout_s);
  bool running();

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  std::filesystem::path out_file_, err_file_;
  double started_ = 0;
};

// Runs a command to completion (with a deadline) and returns its exit status and output.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s = 30,
                          const SpawnOptions& options = {});

// `runner ARGS...`; the binary with the fault kernel when options.env sets
// RUNNER_FAULT_INJECTION.
ProcessResult run_runner(const std::vector<std::string>& args, double timeout_s = 30,
                         const SpawnOptions& options = {});
// The binary a test spawns for these options (see run_runner).
std::string runner_binary_for(const SpawnOptions& options);

std::vector<std::string> lines_of(const std::string& text);

}  // namespace runner::cli_testing
