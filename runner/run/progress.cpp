#include "runner/run/progress.hpp"

#include <fmt/format.h>

namespace runner {

namespace {

std::string clock_text(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02d}:{:02d}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02d}", s / 60, s % 60);
}

// Progress lines are diagnostics: a stderr that refuses them (a closed pipe, a full disk, a
// terminal gone) must not stop the run, so their writes are never checked (fmt::print throws).
void write_quietly(std::FILE* out, const std::string& text) {
  std::fputs(text.c_str(), out);
  std::fflush(out);
}

}  // namespace

Progress::Progress(Mode mode, std::vector<std::string> kinds, std::FILE* out, double log_interval_s)
    : mode_(mode),
      kinds_(std::move(kinds)),
      done_(kinds_.size(), false),
      out_(out),
      log_interval_s_(log_interval_s),
      t0_(std::chrono::steady_clock::now()),
      last_line_(t0_) {}

double Progress::eta_seconds() const {
  if (measured_ == 0) return -1;
  const double mean = total_s_ / measured_;
  double left = 0;
  for (std::size_t i = 0; i < kinds_.size(); ++i) {
    if (done_[i]) continue;
    const auto it = cost_.find(kinds_[i]);
    left += it == cost_.end() ? mean : it->second.first / it->second.second;
  }
  return left;
}

void Progress::start(const std::string& what) {
  current_ = what;
  if (mode_ != Mode::terminal) return;
  const double eta = eta_seconds();
  std::string line = fmt::format("[{}/{}] {}", done_count_ + 1, kinds_.size(), what);
  if (line.size() > 100) line = line.substr(0, 97) + "...";
  write_quietly(out_, fmt::format("\r\033[K{}  ETA {}", line, eta < 0 ? "?" : clock_text(eta)));
}

void Progress::finish(std::size_t index, const std::string& status, double seconds) {
  if (index < done_.size() && !done_[index]) {
    done_[index] = true;
    ++done_count_;
    auto& [sum, n] = cost_[kinds_[index]];
    sum += seconds;
    ++n;
    total_s_ += seconds;
    ++measured_;
  }
  if (mode_ != Mode::log) return;
  const auto now = std::chrono::steady_clock::now();
  const bool last = done_count_ == kinds_.size();
  // Failed and invalid points are worth a line of their own; ok and skipped ones wait their turn.
  if (printed_ && !last && (status == "ok" || status == "skipped") &&
      std::chrono::duration<double>(now - last_line_).count() < log_interval_s_)
    return;
  const double spent = std::chrono::duration<double>(now - t0_).count();
  const double eta = eta_seconds();
  write_quietly(out_,
                fmt::format("[{}/{} {:.0f} %] {} spent, ETA {}; last: {} {} ({})\n", done_count_,
                            kinds_.size(), 100.0 * static_cast<double>(done_count_) / kinds_.size(),
                            clock_text(spent), last ? "0:00" : (eta < 0 ? "?" : clock_text(eta)),
                            current_, status,
                            seconds < 1 ? fmt::format("{:.0f} ms", seconds * 1e3)
                                        : fmt::format("{:.1f} s", seconds)));
  printed_ = true;
  last_line_ = now;
}

void Progress::skip(std::size_t index) {
  if (index < done_.size() && !done_[index]) {
    done_[index] = true;
    ++done_count_;
  }
}

void Progress::clear() {
  if (mode_ == Mode::terminal) write_quietly(out_, "\r\033[K");
}

}  // namespace runner
