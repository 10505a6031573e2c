#pragma once
// A function run in a forked child process, for what must not happen in the runner itself: loading
// a user's plugin (its initialisers may crash or hang), starting the GPU runtime (a process that
// forks workers must never hold a GPU context). The child returns text to the parent through a
// pipe; a crash, a hang past the deadline or an early exit is reported, never suffered.
#include <functional>
#include <string>

namespace runner {

struct ForkedCallResult {
  std::string text;       // what the child's function returned (empty when it did not finish)
  bool finished = false;  // the function returned and the child exited 0
  bool hung = false;      // killed at the deadline
  int signal = 0;         // the signal that ended the child, 0 when none
  int exit_code = -1;     // the child's exit code, -1 when a signal ended it
  // "killed by signal 11 (Segmentation fault)", "exit 3", "no answer within 60 s".
  std::string how_it_ended() const;
};

// Runs `body` in a child process and returns its text. Throws Refused when no child can start.
ForkedCallResult run_forked(const std::function<std::string()>& body, int timeout_s);

}  // namespace runner
