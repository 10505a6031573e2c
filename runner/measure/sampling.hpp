#pragma once
#include <optional>
#include <string>
#include <vector>

#include "runner/api/measure_mode.hpp"
#include "runner/api/workload.hpp"
#include "runner/measure/device_monitor.hpp"
#include "runner/measure/statistics.hpp"
#include "runner/spec/config.hpp"

namespace runner {

// Where sampling stands after a sample.
struct SamplingProgress {
  const std::vector<double>& samples_ms;  // per execution
  double timed_s = 0;  // what the samples timed together: every execution of every batch
  double wall_s = 0;   // since sampling began: flushes, waits and discarded samples included
};

// Decides, after each sample, whether a point has been measured enough: never before min_samples;
// then once the relative standard deviation is at or below target_rsd and the samples have timed
// at least min_seconds together; or, the rsd never settling, once sampling has taken max_seconds
// of wall time; and never beyond max_samples.
class StoppingRule {
 public:
  explicit StoppingRule(const SamplingRule& rule) : rule_(rule) {}
  bool done(const SamplingProgress& p) const;
  // Why sampling stopped, for the record: "rsd", "time", "max_samples".
  const char* reason(const SamplingProgress& p) const;
  // "rsd 2.3 % > target 0.5 % after 100 samples" when the samples ended noisier than the target,
  // else empty.
  std::string noise_warning(const std::vector<double>& samples_ms) const;

 private:
  SamplingRule rule_;
};

// Hot samples are batches of back-to-back executions, timed as one and recorded as their mean, so
// that the clock's resolution and the gaps between launches vanish in a batch that lasts long
// enough. Long enough is min(0.5 s, 25 executions): 0.5 s is what nvbench's hot batches last, and
// 25 executions of a kernel that takes more than 20 ms is already far above any timer's error,
// while 0.5 s of a 100 ms GEMM per sample would make a sweep of large sizes crawl.
constexpr double kHotBatchSeconds = 0.5;
// Warm-up runs after the first stop once they have lasted this long together (or at
// repeat.warmup runs): one more run of a 50 ms kernel, several of a short one.
constexpr double kWarmSeconds = 0.05;
constexpr int kHotBatchMaxLaunches = 25;
// Executions per hot sample for a kernel whose single execution takes `execution_ms`.
int hot_batch_launches(double execution_ms);

struct MeasureOptions {
  MeasureMode mode = MeasureMode::hot;
  // Reads the device's clock after every sample (null: no check, as for CPU points).
  DeviceMonitor* monitor = nullptr;
  double throttle_backoff_s = kThrottleBackoffSeconds;
};

struct Measurement {
  // One per sample, in milliseconds per execution: a hot sample is its batch's time / launches.
  std::vector<double> samples_ms;
  SampleStats stats;
  Verification verification;  // the worse of the checks after the first and the last run
  const char* stop_reason = "";
  std::string noise_warning;  // StoppingRule::noise_warning, plus kept throttled samples
  MeasureMode mode =
      MeasureMode::hot;  // what the samples really were (a CPU workload is never cold)
  int launches_per_sample = 1;
  double timed_s = 0;   // seconds inside the clock over the kept samples (every execution)
  double verify_s = 0;  // wall seconds of the verifications (a first one builds the reference)
  std::optional<int> guard_timeouts;  // samples whose launch guard timed out (guarded clocks only)
  // With a monitor: samples discarded as throttled, and the device's state over the point.
  std::optional<int> discarded_samples;
  std::optional<double> sm_clock_mhz;            // mean of the readings after the kept samples
  std::optional<double> temperature_c, power_w;  // read once, after the last sample
};

// Runs a workload under the rule: one poisoned run checked against the reference (a wrong result
// ends the point there), the remaining warm-up runs (up to repeat.warmup, fewer once they have
// lasted kWarmSeconds), then samples, each on a poisoned output with
// the caches prepared for the mode (Workload::prepare_sample) and timed by the workload's sample
// clock; a cold sample is one execution, a hot one a batch (hot_batch_launches of the fastest
// warm-up run). With a monitor, a sample after which the SM clock is below its minimum is
// discarded and retaken after a back-off, until max_seconds have passed (then kept, and said so in
// noise_warning). The output of the last sample is checked again, which catches races and results
// that drift between runs. Throws what the workload throws.
Measurement measure(Workload& workload, const SamplingRule& rule,
                    const MeasureOptions& options = {});

}  // namespace runner
