#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace runner {

// The command is not on PATH.
class CommandNotFound : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a finished command left: its exit status and everything it printed.
struct CommandOutput {
  int exit_code = 0;  // 128 + signal when a signal ended it
  std::string out, err;
  bool timed_out = false;
};

// Runs `argv` (argv[0] looked up on PATH) without a shell, so no word of it is ever interpreted,
// and collects stdout and stderr. Slurm's clients wait for slurmctld, which can hang when the
// controller is down: after `timeout_s` the command is stopped (SIGTERM, then SIGKILL) and
// timed_out is set. Throws CommandNotFound when argv[0] is not on PATH, std::runtime_error when
// the command cannot be started for another reason.
CommandOutput run_child_command(const std::vector<std::string>& argv, double timeout_s = 120);

// "sbatch --parsable X" as one line for messages and dry runs (words with odd characters quoted).
std::string command_line(const std::vector<std::string>& argv);

}  // namespace runner
