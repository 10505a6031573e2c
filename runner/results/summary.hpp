#pragma once
#include <cstdio>
#include <map>
#include <vector>

#include "runner/results/record.hpp"

namespace runner {

// The records' timings summed (point_s, timed_s, setup_s, verify_s where a record has them): what
// the summary's Time line splits. A run adds each record it runs, without keeping the records.
struct PointTimes {
  std::size_t points = 0;
  double point_s = 0, timed_s = 0, setup_s = 0, verify_s = 0;
  // Each GPU's points (by gpu_index) and the rest's (the CPU worker's): the GPUs of a run spread
  // over several work at once, so their points' times add up to more than the wall time.
  struct Share {
    std::size_t points = 0;
    double point_s = 0;
  };
  std::map<int, Share> by_gpu;
  Share off_gpu;
  void add(const Record& r);
};

// The table printed at the end of a run: per kernel, dtype and size the fastest ok variant with
// its figure (the first 40 problems, then how many more), then the counts by status and the
// reasons of points that did not run (the first 40), then where
// the time went: the run's wall time (when given, > 0), the points' (point_s) and the time inside
// the clock (timed_s), the last two summed over the records that have them. `session`: the times
// of the records this invocation ran, where a resume kept others from before — the wall time is
// this invocation's, so the time split covers those alone (null: all of `records`).
void print_summary(const std::vector<Record>& records, std::size_t planned, std::FILE* out,
                   double run_wall_s = 0, const PointTimes* session = nullptr);

}  // namespace runner
