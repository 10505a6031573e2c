#pragma once
#include <map>
#include <string>
#include <vector>

#include "runner/api/registry.hpp"
#include "runner/results/record.hpp"

namespace runner {

// Figures that compare a point with another point of the same run: `speedup` (baseline median
// over this median, same problem), `efficiency` (speedup / threads for CPU points, speedup / warps
// in use for CUDA points: min(launch_warps, resident_warps)), `scaling_efficiency` (the strong-
// scaling efficiency of an OpenMP variant, T(1) / (p · T(p)), against its own point at one thread)
// and `pct_of_<ceiling>` (this gbps over the ceiling variant's gbps, same problem and backend, e.g.
// pct_of_copy for transposes). Never a constant: without its baseline in the set a point has none.
// Never across GPUs: a GPU point is compared with what ran on the same GPU (its gpu_uuid), and with
// a CPU baseline.
class RelativeMetrics {
 public:
  explicit RelativeMetrics(const Registry& registry) : registry_(registry) {}
  // Remembers a finished record if it is a baseline or a ceiling.
  void observe(const Record& record);
  // Fills the comparative fields of a record from what was observed so far.
  void apply(Record& record) const;

 private:
  const Registry& registry_;
  std::map<std::string, double> baseline_ms_;    // problem key|device → median
  std::map<std::string, double> ceiling_gbps_;   // problem key|backend|device → gbps
  std::map<std::string, double> one_thread_ms_;  // scaling_key → median at one thread
};

// The point key without its thread count: the points of one strong-scaling series (one variant,
// one problem, every other axis equal) share it.
std::string scaling_key(const Record& record);

// Recomputes the comparative fields of a whole record set (after merging shards).
void apply_relative_metrics(std::vector<Record>& records, const Registry& registry);

}  // namespace runner
