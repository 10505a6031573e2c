#include "runner/sampling.hpp"

#include <chrono>

#include "runner/interrupt.hpp"
#include "runner/statistics.hpp"

namespace runner {

bool StoppingRule::done(const std::vector<double>& samples_ms, double elapsed_s) const {
  const int n = static_cast<int>(samples_ms.size());
  if (n >= rule_.max_samples) return true;
  if (n < rule_.min_samples) return false;
  if (elapsed_s >= rule_.max_seconds) return true;
  return summarize(samples_ms).rsd <= rule_.target_rsd;
}

const char* StoppingRule::reason(const std::vector<double>& samples_ms, double elapsed_s) const {
  const int n = static_cast<int>(samples_ms.size());
  if (n >= rule_.min_samples && summarize(samples_ms).rsd <= rule_.target_rsd) return "rsd";
  if (n >= rule_.max_samples) return "max_samples";
  if (elapsed_s >= rule_.max_seconds) return "time";
  return "";
}

Measurement measure(Workload& workload, const SamplingRule& rule) {
  Measurement m;
  auto clock = workload.make_clock();

  workload.poison_output();
  clock->start();
  workload.run();
  clock->stop_ms();
  m.verification = workload.verify();
  if (!m.verification.passed) return m;
  for (int i = 1; i < rule.warmup; ++i) {
    clock->start();
    workload.run();
    clock->stop_ms();
  }

  const StoppingRule stop(rule);
  const auto t0 = std::chrono::steady_clock::now();
  double elapsed = 0;
  do {
    if (interrupt_requested()) throw Interrupted{};
    workload.poison_output();
    clock->start();
    workload.run();
    m.samples_ms.push_back(clock->stop_ms());
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } while (!stop.done(m.samples_ms, elapsed));
  m.stop_reason = stop.reason(m.samples_ms, elapsed);
  m.stats = summarize(m.samples_ms);

  Verification last = workload.verify();
  if (!last.passed || last.max_rel_err > m.verification.max_rel_err) m.verification = last;
  return m;
}

}  // namespace runner
