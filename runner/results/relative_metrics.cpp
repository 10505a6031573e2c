#include "runner/results/relative_metrics.hpp"

#include <algorithm>

namespace runner {

namespace {
bool is_ok(const Record& r) {
  return text_of(r, "status") == "ok";
}

// The thread count of an OpenMP point; 0 for any other.
double threads_of(const Record& r) {
  return text_of(r, "backend") == "cpu" ? number_or(r, "threads", 0) : 0;
}

// The device a record was measured on, as far as ratios go: "cpu", or the GPU's UUID, so that no
// ratio mixes two GPUs of a run spread over several (runner/run/device_scheduler.hpp).
std::string device_of(const Record& r) {
  if (const std::string backend = text_of(r, "backend"); backend.empty() || backend == "cpu")
    return "cpu";
  return "gpu:" + text_of(r, "gpu_uuid");
}
}  // namespace

std::string scaling_key(const Record& r) {
  std::string key;
  const std::string point_key = text_of(r, "point_key");
  for (std::size_t start = 0; start <= point_key.size();) {
    std::size_t end = point_key.find(' ', start);
    if (end == std::string::npos) end = point_key.size();
    const std::string_view word(point_key.data() + start, end - start);
    if (!word.starts_with("threads=")) key += (key.empty() ? "" : " ") + std::string(word);
    start = end + 1;
  }
  return key + "|" + text_of(r, "plugin");
}

void RelativeMetrics::observe(const Record& r) {
  if (!is_ok(r)) return;
  if (const auto b = r.find("is_baseline"); b != r.end() && b->is_boolean() && b->get<bool>())
    baseline_ms_[problem_key_of(r) + "|" + device_of(r)] = number_or(r, "time_ms_median", 0);
  const KernelInfo* k = registry_.find(text_of(r, "kernel"));
  if (k && !k->ceiling_variant.empty() && text_of(r, "variant") == k->ceiling_variant)
    ceiling_gbps_[problem_key_of(r) + "|" + text_of(r, "backend") + "|" + device_of(r)] =
        number_or(r, "gbps", 0);
  if (threads_of(r) == 1) one_thread_ms_[scaling_key(r)] = number_or(r, "time_ms_median", 0);
}

void RelativeMetrics::apply(Record& r) const {
  if (!is_ok(r)) return;
  const double median = number_or(r, "time_ms_median", 0);
  // The baseline on the same device (a GPU baseline of a GPU point), else the CPU's.
  auto base = baseline_ms_.find(problem_key_of(r) + "|" + device_of(r));
  if (base == baseline_ms_.end()) base = baseline_ms_.find(problem_key_of(r) + "|cpu");
  if (base != baseline_ms_.end() && median > 0 && base->second > 0) {
    const double speedup = base->second / median;
    r["speedup"] = speedup;
    const auto threads = r.find("threads");
    if (text_of(r, "backend") == "cpu" && threads != r.end() && threads->is_number())
      r["efficiency"] = speedup / threads->get<double>();
    // A GPU point: over the warps in use, as seed 003 defines it (runner/api/launch_waves.hpp);
    // library calls record no launch and get no efficiency.
    const double warps =
        std::min(number_or(r, "launch_warps", 0), number_or(r, "resident_warps", 0));
    if (text_of(r, "backend") == "cuda" && warps > 0) r["efficiency"] = speedup / warps;
  }
  // Strong scaling: against the variant's own time at one thread, whatever the baseline. The
  // matrix runs a variant's one-thread point of a problem before its others (runner/spec/matrix).
  if (const double threads = threads_of(r); threads > 0 && median > 0) {
    const auto one = one_thread_ms_.find(scaling_key(r));
    if (one != one_thread_ms_.end() && one->second > 0)
      r["scaling_efficiency"] = one->second / (threads * median);
  }
  const KernelInfo* k = registry_.find(text_of(r, "kernel"));
  if (k && !k->ceiling_variant.empty()) {
    const auto ceiling =
        ceiling_gbps_.find(problem_key_of(r) + "|" + text_of(r, "backend") + "|" + device_of(r));
    const double gbps = number_or(r, "gbps", 0);
    if (ceiling != ceiling_gbps_.end() && ceiling->second > 0 && gbps > 0)
      r["pct_of_" + k->ceiling_variant] = 100.0 * gbps / ceiling->second;
  }
}

void apply_relative_metrics(std::vector<Record>& records, const Registry& registry) {
  RelativeMetrics metrics(registry);
  for (const auto& r : records) metrics.observe(r);
  for (auto& r : records) metrics.apply(r);
}

}  // namespace runner
