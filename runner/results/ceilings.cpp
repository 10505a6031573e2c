#include "runner/results/ceilings.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace runner {

namespace {

void set_pct(Record& r, const char* key, double value, double ceiling) {
  if (value > 0 && ceiling > 0) r[key] = 100.0 * value / ceiling;
}

}  // namespace

bool fits_in_cache(const Record& r, std::int64_t cache_bytes) {
  const double bytes = number_or(r, "gbps") * 1e9 * number_or(r, "time_ms_median") * 1e-3;
  return cache_bytes > 0 && bytes > 0 && bytes <= static_cast<double>(cache_bytes);
}

namespace {

// A calibration document's account of itself.
Ceilings::State state_of(const nlohmann::json& doc, std::int64_t cache_bytes) {
  Ceilings::State s;
  if (!doc.is_object()) return s;
  s.measured = doc.value("measured", "");
  s.cache_bytes = cache_bytes;
  const auto verdict = doc.find("verdict");
  if (verdict != doc.end() && verdict->is_object() &&
      verdict->value("state", "quiet") == "provisional") {
    const auto reasons = verdict->value("reasons", nlohmann::json::array());
    s.under_load = reasons.empty() || !reasons[0].is_string() ? std::string("noisy")
                                                              : reasons[0].get<std::string>();
  }
  const auto stale = doc.find("stale");
  if (stale != doc.end() && stale->is_object()) s.stale = stale->value("reason", "a point beat it");
  return s;
}

std::string mib(double bytes) {
  return fmt::format("{:.1f} MiB", bytes / 1048576.0);
}

}  // namespace

double at_threads(const std::vector<std::pair<int, double>>& table, double threads) {
  if (table.empty()) return 0;
  if (threads <= table.front().first) return table.front().second;
  if (threads >= table.back().first) return table.back().second;
  for (std::size_t i = 1; i < table.size(); ++i) {
    const auto& [t1, v1] = table[i];
    if (threads > t1) continue;
    const auto& [t0, v0] = table[i - 1];
    return v0 + (v1 - v0) * (threads - t0) / (t1 - t0);
  }
  return table.back().second;
}

Ceilings::Ceilings(const nlohmann::json& calibration) {
  if (!calibration.is_object()) return;
  theoretical_bw_gbps_ = number_or(calibration, "theoretical_bw_gbps");
  const auto gpu = calibration.find("gpu");
  if (gpu != calibration.end() && gpu->is_object() && gpu->contains("ceilings") &&
      (*gpu)["ceilings"].is_object())
    for (const auto& item : (*gpu)["ceilings"].items())
      if (item.value().is_number()) gpu_[item.key()] = item.value().get<double>();
  if (theoretical_bw_gbps_ <= 0 && gpu_.count("theoretical_bw_gbps"))
    theoretical_bw_gbps_ = gpu_["theoretical_bw_gbps"];
  if (gpu != calibration.end()) {
    const auto info = gpu->find("gpu");
    gpu_state_ = state_of(*gpu, info != gpu->end() && info->is_object()
                                    ? static_cast<std::int64_t>(number_or(*info, "l2_bytes"))
                                    : 0);
  }
  const auto cpu = calibration.find("cpu");
  if (cpu != calibration.end())
    cpu_state_ =
        state_of(*cpu, static_cast<std::int64_t>(number_or(*cpu, "last_level_cache_bytes")));
  if (cpu != calibration.end() && cpu->is_object() && cpu->contains("ceilings") &&
      (*cpu)["ceilings"].is_array()) {
    for (const auto& row : (*cpu)["ceilings"]) {
      const int t = static_cast<int>(number_or(row, "threads"));
      if (t < 1) continue;
      cpu_copy_gbps_.emplace_back(t, number_or(row, "copy_gbps"));
      cpu_sgemm_gflops_.emplace_back(t, number_or(row, "sgemm_gflops"));
      cpu_dgemm_gflops_.emplace_back(t, number_or(row, "dgemm_gflops"));
    }
    for (auto* table : {&cpu_copy_gbps_, &cpu_sgemm_gflops_, &cpu_dgemm_gflops_})
      std::sort(table->begin(), table->end());
  }
}

void Ceilings::apply(Record& r, const Registry& registry) const {
  if (text_of(r, "status") != "ok") return;
  const double gbps = number_or(r, "gbps"), gflops = number_or(r, "gflops");
  const std::string dtype = text_of(r, "dtype");
  const std::string backend = text_of(r, "backend");
  auto gpu = [&](const char* key) {
    const auto it = gpu_.find(key);
    return it == gpu_.end() ? 0.0 : it->second;
  };
  if (backend == "cuda") {
    set_pct(r, "pct_peak_bw", gbps, gpu("copy_gbps"));
    set_pct(r, "pct_theoretical_bw", gbps, theoretical_bw_gbps_);
    const KernelInfo* k = registry.find(text_of(r, "kernel"));
    const VariantInfo* v = k ? k->find_variant(text_of(r, "variant")) : nullptr;
    const bool tf32 = v && v->precision == Precision::tf32;
    // The dtype's ceiling is the most the device was measured to do in it: the FMA peak, or
    // cuBLAS GEMM where that is higher (FP64 tensor cores: an H100's DGEMM runs at about twice
    // its FP64 FMA peak, and a DGEMM measured against the FMA peak would read 180 %).
    const double flops_ceiling = tf32 ? gpu("sgemm_tf32_gflops")
                                 : dtype == "double"
                                     ? std::max(gpu("fp64_fma_gflops"), gpu("dgemm_gflops"))
                                     : std::max(gpu("fp32_fma_gflops"), gpu("sgemm_gflops"));
    set_pct(r, "pct_peak_flops", gflops, flops_ceiling);
  } else if (backend == "cpu") {
    const double threads = number_or(r, "threads", 1);
    set_pct(r, "pct_peak_bw", gbps, at_threads(cpu_copy_gbps_, threads));
    set_pct(r, "pct_peak_flops", gflops,
            at_threads(dtype == "double" ? cpu_dgemm_gflops_ : cpu_sgemm_gflops_, threads));
  }
  const bool flops_above = number_or(r, "pct_peak_flops") > 100,
             bandwidth_above = number_or(r, "pct_peak_bw") > 100;
  if (flops_above || bandwidth_above)
    r["ceiling_note"] =
        note(r, backend == "cpu" ? cpu_state_ : gpu_state_, flops_above, bandwidth_above);
}

std::string Ceilings::note(const Record& r, const State& state, bool flops_above,
                           bool bandwidth_above) const {
  const char* which = flops_above && bandwidth_above ? "compute and bandwidth ceilings"
                      : flops_above                  ? "compute ceiling"
                                                     : "bandwidth ceiling";
  if (!state.under_load.empty())
    return fmt::format(
        "above a {} measured under load ({}): the ceiling is too low; `runner "
        "calibrate` on a quiet machine measures it again",
        which, state.under_load);
  if (!state.stale.empty())
    return fmt::format("above a stale {} ({}): the next run measures it again", which, state.stale);
  if (!flops_above && fits_in_cache(r, state.cache_bytes))
    return fmt::format(
        "its {} fit in the {} {} cache: faster than the copy through memory that the bandwidth "
        "ceiling measures",
        mib(number_or(r, "gbps") * 1e6 * number_or(r, "time_ms_median")), mib(state.cache_bytes),
        text_of(r, "backend") == "cpu" ? "last-level" : "L2");
  return fmt::format(
      "above the {} calibrated {}: the ceiling is stale, or this problem suits the hardware "
      "better than the calibration's (`runner calibrate --check`)",
      which, state.measured.empty() ? "before" : "on " + state.measured);
}

}  // namespace runner
