#include "runner/run/progress.hpp"

#include <fmt/format.h>

namespace runner {

Progress::Progress(bool enabled, std::size_t total)
    : enabled_(enabled), total_(total), t0_(std::chrono::steady_clock::now()) {}

void Progress::start(const std::string& what) {
  if (!enabled_) return;
  std::string eta = "?";
  if (timed_ > 0) {
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    const auto left = static_cast<long>(spent / static_cast<double>(timed_) * static_cast<double>(total_ - done_));
    eta = fmt::format("{}:{:02d}", left / 60, left % 60);
  }
  std::string line = fmt::format("[{}/{}] {}", done_ + 1, total_, what);
  if (line.size() > 100) line = line.substr(0, 97) + "...";
  fmt::print(stderr, "\r\033[K{}  ETA {}", line, eta);
  std::fflush(stderr);
}

void Progress::finish(const std::string&) {
  ++done_;
  ++timed_;
}

void Progress::skip() { ++done_; }

void Progress::clear() {
  if (enabled_) fmt::print(stderr, "\r\033[K");
}

}  // namespace runner
