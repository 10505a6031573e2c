#include "runner/measure/sampling.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <thread>

#include <fmt/format.h>

#include "runner/base/interrupt.hpp"
#include "runner/measure/statistics.hpp"

namespace runner {

namespace {

bool settled(const SamplingRule& rule, const SamplingProgress& p) {
  return static_cast<int>(p.samples_ms.size()) >= rule.min_samples &&
         p.timed_s >= rule.min_seconds && summarize(p.samples_ms).rsd <= rule.target_rsd;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

bool StoppingRule::done(const SamplingProgress& p) const {
  const int n = static_cast<int>(p.samples_ms.size());
  if (n >= rule_.max_samples) return true;
  if (n < rule_.min_samples) return false;
  if (p.wall_s >= rule_.max_seconds) return true;
  return settled(rule_, p);
}

const char* StoppingRule::reason(const SamplingProgress& p) const {
  if (settled(rule_, p)) return "rsd";
  if (static_cast<int>(p.samples_ms.size()) >= rule_.max_samples) return "max_samples";
  if (p.wall_s >= rule_.max_seconds) return "time";
  return "";
}

std::string StoppingRule::noise_warning(const std::vector<double>& samples_ms) const {
  const SampleStats s = summarize(samples_ms);
  if (s.rsd <= rule_.target_rsd) return "";
  return fmt::format("rsd {} % > target {} % after {} samples", percent_text(s.rsd),
                     percent_text(rule_.target_rsd), s.samples);
}

int hot_batch_launches(double execution_ms) {
  if (!(execution_ms > 0)) return kHotBatchMaxLaunches;  // below the clock's resolution
  const double launches = std::ceil(kHotBatchSeconds * 1e3 / execution_ms);
  return static_cast<int>(std::clamp(launches, 1.0, static_cast<double>(kHotBatchMaxLaunches)));
}

Measurement measure(Workload& workload, const SamplingRule& rule, const MeasureOptions& options) {
  Measurement m;
  auto clock = workload.make_clock();

  // Both checks are timed into verify_s (the first one of a problem builds its reference).
  auto timed_verify = [&] {
    const auto start = std::chrono::steady_clock::now();
    Verification v = workload.verify();
    m.verify_s += seconds_since(start);
    return v;
  };

  workload.poison_output();
  clock->start();
  workload.run();
  double fastest_ms = clock->stop_ms();
  m.verification = timed_verify();
  if (!m.verification.passed) return m;
  // The warm-up ends after `warmup` runs, or earlier once the runs after the first have lasted
  // kWarmSeconds together: a kernel that has run that long since its first launch is warm (its
  // module loaded, its caches and clocks settled), and more runs of a long kernel only cost time.
  double warm_s = 0;
  for (int i = 1; i < rule.warmup && warm_s < kWarmSeconds; ++i) {
    clock->start();
    workload.run();
    const double ms = clock->stop_ms();
    warm_s += ms * 1e-3;
    fastest_ms = std::min(fastest_ms, ms);
  }
  // The first run pays for lazy module loading and the like; the fastest run is the estimate
  // closest to a single warm execution.
  const int batch = hot_batch_launches(fastest_ms);

  auto sample_clock = workload.make_sample_clock();
  DeviceMonitor* monitor = options.monitor;
  const double min_clock = monitor ? monitor->min_sm_clock_mhz() : 0;
  std::vector<double> clocks;
  int discarded = 0, throttled_kept = 0;
  const StoppingRule stop(rule);
  const auto t0 = std::chrono::steady_clock::now();
  SamplingProgress progress{m.samples_ms};
  do {
    if (interrupt_requested()) throw Interrupted{};
    workload.poison_output();
    m.mode = workload.prepare_sample(options.mode);
    m.launches_per_sample = m.mode == MeasureMode::hot ? batch : 1;
    sample_clock->start();
    for (int i = 0; i < m.launches_per_sample; ++i) workload.run();
    const double batch_ms = sample_clock->stop_ms();
    progress.wall_s = seconds_since(t0);
    if (monitor) {
      const std::optional<double> mhz = monitor->sm_clock_mhz();
      if (mhz && *mhz < min_clock) {
        // A throttled (or not yet boosted) GPU: let it recover, then take the sample again. Past
        // max_seconds it is what the device gives, kept and reported.
        if (progress.wall_s < rule.max_seconds) {
          ++discarded;
          std::this_thread::sleep_for(std::chrono::duration<double>(options.throttle_backoff_s));
          continue;
        }
        ++throttled_kept;
      }
      if (mhz) clocks.push_back(*mhz);
    }
    m.samples_ms.push_back(batch_ms / m.launches_per_sample);
    progress.timed_s += batch_ms * 1e-3;
  } while (!stop.done(progress));
  m.stop_reason = stop.reason(progress);
  m.timed_s = progress.timed_s;
  m.stats = summarize(m.samples_ms);
  m.noise_warning = stop.noise_warning(m.samples_ms);
  if (throttled_kept > 0)
    m.noise_warning +=
        fmt::format("{}{} samples below {:.0f} % of the default SM clock kept (out of time)",
                    m.noise_warning.empty() ? "" : "; ", throttled_kept, 100 * kThrottleFraction);
  m.guard_timeouts = sample_clock->guard_timeouts();
  if (monitor) {
    m.discarded_samples = discarded;
    if (!clocks.empty())
      m.sm_clock_mhz =
          std::accumulate(clocks.begin(), clocks.end(), 0.0) / static_cast<double>(clocks.size());
    m.temperature_c = monitor->temperature_c();
    m.power_w = monitor->power_w();
  }

  Verification last = timed_verify();
  if (!last.passed || last.max_rel_err > m.verification.max_rel_err) m.verification = last;
  return m;
}

}  // namespace runner
