#include "runner/results/ceilings.hpp"

#include <algorithm>

namespace runner {

namespace {

void set_pct(Record& r, const char* key, double value, double ceiling) {
  if (value > 0 && ceiling > 0) r[key] = 100.0 * value / ceiling;
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
  const auto cpu = calibration.find("cpu");
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
  if (r.value("status", "") != "ok") return;
  const double gbps = number_or(r, "gbps"), gflops = number_or(r, "gflops");
  const std::string dtype =
      r.contains("dtype") && r["dtype"].is_string() ? r["dtype"].get<std::string>() : "";
  const std::string backend = r.value("backend", "");
  auto gpu = [&](const char* key) {
    const auto it = gpu_.find(key);
    return it == gpu_.end() ? 0.0 : it->second;
  };
  if (backend == "cuda") {
    set_pct(r, "pct_peak_bw", gbps, gpu("copy_gbps"));
    set_pct(r, "pct_theoretical_bw", gbps, theoretical_bw_gbps_);
    const KernelInfo* k = registry.find(r.value("kernel", ""));
    const VariantInfo* v = k ? k->find_variant(r.value("variant", "")) : nullptr;
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
}

}  // namespace runner
