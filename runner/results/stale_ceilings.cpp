#include "runner/results/stale_ceilings.hpp"

#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "runner/base/durable_file.hpp"
#include "runner/measure/calibration_quality.hpp"
#include "runner/measure/calibration_store.hpp"
#include "runner/results/ceilings.hpp"

namespace runner {

namespace {

// The best GFLOP/s of the CPU points per ceiling figure and thread count, into `observed`.
bool add_observed(nlohmann::ordered_json& observed, const std::vector<Record>& records) {
  bool changed = false;
  for (const Record& r : records) {
    if (text_of(r, "status") != "ok" || text_of(r, "backend") != "cpu") continue;
    const double gflops = number_or(r, "gflops");
    if (gflops <= 0) continue;
    const std::string figure =
        r.contains("dtype") && r["dtype"] == "double" ? "dgemm_gflops" : "sgemm_gflops";
    const std::string threads = std::to_string(static_cast<int>(number_or(r, "threads", 1)));
    auto& entry = observed[figure][threads];
    if (entry.is_object() && number_or(entry, "value") >= gflops) continue;
    entry = {{"value", gflops},
             {"point", text_of(r, "point_key")},
             {"measured", text_of(r, "timestamp")}};
    changed = true;
  }
  return changed;
}

// The first point that beats its ceiling by more than kStaleMargin where no cache explains it.
std::string unexplained_excess(const std::vector<Record>& records, const std::string& backend,
                               std::int64_t cache_bytes, const std::string& gpu_uuid) {
  for (const Record& r : records) {
    if (text_of(r, "status") != "ok" || text_of(r, "backend") != backend) continue;
    // On a run over several GPUs, only the points of the GPU this document calibrated.
    const auto uuid = r.find("gpu_uuid");
    if (!gpu_uuid.empty() && uuid != r.end() && uuid->is_string() && *uuid != gpu_uuid) continue;
    const double flops = number_or(r, "pct_peak_flops"), bandwidth = number_or(r, "pct_peak_bw");
    const bool beats_flops = flops > 100 * kStaleMargin;
    const bool beats_bandwidth = bandwidth > 100 * kStaleMargin && !fits_in_cache(r, cache_bytes);
    if (!beats_flops && !beats_bandwidth) continue;
    return fmt::format("{} reached {:.0f} % of its {} ceiling on {}", text_of(r, "point_key"),
                       beats_flops ? flops : bandwidth, beats_flops ? "compute" : "bandwidth",
                       text_of(r, "timestamp"));
  }
  return "";
}

void note_one(const std::string& kind, const nlohmann::json& used,
              const std::filesystem::path& file, const std::vector<Record>& records) {
  // A site's calibration the user may not write stays as the site made it.
  if (::access(file.c_str(), W_OK) != 0) return;
  // The lock a measuring run holds: the store folder, above the host's (stored/HOST/FILE).
  const CalibrationLock lock(file.parent_path().parent_path());
  nlohmann::ordered_json doc = read_calibration(file);
  if (!doc.is_object()) return;
  bool changed = false;
  if (kind == "cpu") {
    nlohmann::ordered_json observed = doc.value("observed", nlohmann::ordered_json::object());
    if (add_observed(observed, records)) {
      doc["observed"] = observed;
      changed = true;
    }
  }
  // Only the document the run used, and only a quiet one: a provisional calibration is measured
  // again anyway once the machine is quiet, and its excess is already explained.
  const bool same = doc.value("measured", "") == used.value("measured", "");
  if (same && calibration_is_quiet(doc) && !calibration_is_stale(doc)) {
    const std::int64_t cache =
        kind == "cpu"
            ? static_cast<std::int64_t>(number_or(doc, "last_level_cache_bytes"))
            : static_cast<std::int64_t>(number_or(doc.value("gpu", nlohmann::json()), "l2_bytes"));
    const std::string uuid =
        kind == "gpu" ? doc.value("gpu", nlohmann::json::object()).value("uuid", "") : "";
    if (const std::string why =
            unexplained_excess(records, kind == "gpu" ? "cuda" : kind, cache, uuid);
        !why.empty()) {
      doc["stale"] = {{"reason", why}};
      changed = true;
      spdlog::warn("the {} ceilings of {} are stale: {}; the next run measures them again", kind,
                   file.string(), why);
    }
  }
  if (changed) write_file_atomically(file, doc.dump(2) + "\n");
}

}  // namespace

void note_points_against_ceilings(const nlohmann::json& calibration,
                                  const std::vector<Record>& records) {
  if (!calibration.is_object() || !calibration.contains("files")) return;
  for (const auto& [kind, file] : calibration["files"].items()) {
    if (!file.is_string() || !calibration.contains(kind)) continue;
    try {
      note_one(kind, calibration[kind], file.get<std::string>(), records);
    } catch (const std::exception& e) {
      spdlog::warn("could not note this run's points in {}: {}", file.get<std::string>(), e.what());
    }
  }
}

}  // namespace runner
