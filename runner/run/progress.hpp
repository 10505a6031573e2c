#pragma once
#include <chrono>
#include <cstddef>
#include <string>

namespace runner {

// The live line on stderr while a run goes: "[12/40] gemm/omp_blocked ... ETA 0:42". Drawn only
// when stderr is a terminal, so logs and Slurm output files stay clean.
class Progress {
 public:
  Progress(bool enabled, std::size_t total);
  void start(const std::string& what);
  void finish(const std::string& status);
  void skip();  // a point already done (resume)
  void clear();

 private:
  bool enabled_;
  std::size_t total_, done_ = 0, timed_ = 0;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace runner
