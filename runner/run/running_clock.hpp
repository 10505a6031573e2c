#pragma once
#include <sys/types.h>

#include <chrono>

namespace runner {

// Seconds that count only while the process can run. Each reading adds the time since the
// previous one, but at most `max_step` (readings come every 100 ms): a longer gap means the process
// was not running (stopped by SIGSTOP or Ctrl-Z, a suspended machine), and a point's time limit
// must not expire because of it. Read it often (every 100 ms or so); a reading may also be told not
// to count its gap (the worker was seen stopped).
class RunningClock {
 public:
  explicit RunningClock(double max_step_s = 0.25);
  // Seconds so far; `count_gap` false leaves the time since the previous reading out.
  double seconds(bool count_gap = true);

 private:
  double max_step_s_;
  double total_ = 0;
  std::chrono::steady_clock::time_point last_;
};

// Whether process `pid` is stopped (state T or t in /proc/PID/stat): SIGSTOP, SIGTSTP, a debugger.
bool process_stopped(pid_t pid);

}  // namespace runner
