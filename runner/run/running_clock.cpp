#include "runner/run/running_clock.hpp"

#include <algorithm>
#include <fstream>
#include <string>

namespace runner {

RunningClock::RunningClock(double max_step_s)
    : max_step_s_(max_step_s), last_(std::chrono::steady_clock::now()) {}

double RunningClock::seconds(bool count_gap) {
  const auto now = std::chrono::steady_clock::now();
  const double gap = std::chrono::duration<double>(now - last_).count();
  last_ = now;
  if (count_gap) total_ += std::clamp(gap, 0.0, max_step_s_);
  return total_;
}

bool process_stopped(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  // pid (comm) state ...: comm may hold spaces and parentheses, so read after the last ')'.
  const auto close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return false;
  const char state = stat[close + 2];
  return state == 'T' || state == 't';
}

}  // namespace runner
