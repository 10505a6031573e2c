#pragma once
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace runner {

// Where a run is, on stderr. On a terminal: a live line "[12/40] gemm/omp_blocked ... ETA 0:42"
// redrawn at each point. Elsewhere (a Slurm output file, a pipe): a plain line at the first
// point, then at most every `log_interval_s`, for every point that failed or was invalid, and at
// the last: "[12/40 30 %] 0:35 spent, ETA 0:42; last: gemm/omp_blocked ... ok (2.1 s)". Off with
// --quiet.
//
// The ETA weighs the points left by what points of the same variant have cost so far (points of
// a variant not seen yet count at the run's mean): a run whose first points are fast CPU ones and
// whose last are slow GPU ones, or the reverse, does not see its estimate jump by the ratio.
class Progress {
 public:
  enum class Mode { off, terminal, log };
  // `kinds`: for each point of the run, in order, what its cost is estimated by (kernel/variant).
  Progress(Mode mode, std::vector<std::string> kinds, std::FILE* out = stderr,
           double log_interval_s = 10.0);
  void start(const std::string& what);
  void finish(std::size_t index, const std::string& status, double seconds);
  void skip(std::size_t index);  // a point already done (resume)
  void clear();
  // Seconds the points not yet done should take, from the costs seen so far; < 0 before any.
  double eta_seconds() const;

 private:
  Mode mode_;
  std::vector<std::string> kinds_;
  std::vector<bool> done_;
  std::FILE* out_;
  double log_interval_s_;
  std::size_t done_count_ = 0;
  std::map<std::string, std::pair<double, int>> cost_;  // kind → seconds, points measured
  double total_s_ = 0;
  int measured_ = 0;
  std::string current_;
  std::chrono::steady_clock::time_point t0_, last_line_;
  bool printed_ = false;
};

}  // namespace runner
