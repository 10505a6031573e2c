#pragma once
#include <functional>
#include <vector>

#include "runner/config.hpp"
#include "runner/statistics.hpp"
#include "runner/workload.hpp"

namespace runner {

// Decides, after each sample, whether a point has been measured enough: at least min_samples,
// then stop once the relative standard deviation is at or below target_rsd, or the samples have
// taken max_seconds, or max_samples are reached.
class StoppingRule {
 public:
  explicit StoppingRule(const SamplingRule& rule) : rule_(rule) {}
  bool done(const std::vector<double>& samples_ms, double elapsed_s) const;
  // Why sampling stopped, for the record: "rsd", "time", "max_samples".
  const char* reason(const std::vector<double>& samples_ms, double elapsed_s) const;

 private:
  SamplingRule rule_;
};

struct Measurement {
  std::vector<double> samples_ms;
  SampleStats stats;
  Verification verification;  // the worse of the checks after the first and the last run
  const char* stop_reason = "";
};

// Runs a workload under the rule: one poisoned run checked against the reference (a wrong result
// ends the point there), the remaining warm-up runs, then samples, each on a poisoned output and
// timed by the workload's clock; the output of the last sample is checked again, which catches
// races and results that drift between runs. Throws what the workload throws.
Measurement measure(Workload& workload, const SamplingRule& rule);

}  // namespace runner
