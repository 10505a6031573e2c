#include "runner/measure/calibration_quality.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include <fmt/format.h>

namespace runner {

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double number(const nlohmann::json& j, const char* key, double fallback = 0) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string load_text(const nlohmann::json& load) {
  return load.is_array() && !load.empty() && load[0].is_number()
             ? fmt::format("{:.2f}", load[0].get<double>())
             : "?";
}

struct Figure {
  const char* key;
  const char* name;
  const char* unit;
  const char* spread = "";  // the key of its spread (CPU rows)
};
constexpr Figure kCpuFigures[] = {{"copy_gbps", "copy", "GB/s", "copy_spread"},
                                  {"sgemm_gflops", "SGEMM", "GFLOP/s", "sgemm_spread"},
                                  {"dgemm_gflops", "DGEMM", "GFLOP/s", "dgemm_spread"}};
constexpr Figure kGpuFigures[] = {{"copy_gbps", "copy", "GB/s"},
                                  {"fp32_fma_gflops", "FP32 FMA", "GFLOP/s"},
                                  {"fp64_fma_gflops", "FP64 FMA", "GFLOP/s"},
                                  {"sgemm_gflops", "cuBLAS SGEMM", "GFLOP/s"},
                                  {"sgemm_tf32_gflops", "TF32 cuBLAS", "GFLOP/s"},
                                  {"dgemm_gflops", "cuBLAS DGEMM", "GFLOP/s"}};

std::string threads_text(int t) {
  return fmt::format("{} thread{}", t, t == 1 ? "" : "s");
}

// The row of a CPU document at `threads`, or null.
nlohmann::json row_at(const nlohmann::json& doc, int threads) {
  if (doc.is_object() && doc.contains("ceilings") && doc["ceilings"].is_array())
    for (const auto& row : doc["ceilings"])
      if (row.is_object() && static_cast<int>(number(row, "threads")) == threads) return row;
  return nullptr;
}

// The previous document, where it can bound a new one from below: measured quiet, not stale.
bool usable_lower_bound(const nlohmann::json& previous) {
  return previous.is_object() && calibration_is_quiet(previous) && !calibration_is_stale(previous);
}

// A point of the machine above a new figure: `entry` is {"value", "point", "measured"}.
std::string observed_reason(const std::string& what, double value, const char* unit,
                            const nlohmann::json& entry) {
  return fmt::format(
      "{}, {:.1f} {}, is below a point measured on this machine: {} reached {:.1f} {}{}", what,
      value, unit, entry.value("point", "a point"), number(entry, "value"), unit,
      entry.contains("measured") ? " on " + entry.value("measured", "") : "");
}

}  // namespace

ConditionWatch::ConditionWatch() : load_(load_average()), times_(cpu_times()), start_s_(now_s()) {}

nlohmann::ordered_json ConditionWatch::stop() const {
  const auto after = load_average();
  nlohmann::ordered_json j;
  j["load_average_before"] = {load_[0], load_[1], load_[2]};
  j["load_average_after"] = {after[0], after[1], after[2]};
  j["other_processes_cores"] = other_processes_cores(times_, cpu_times());
  j["seconds"] = now_s() - start_s_;
  return j;
}

double other_processes_cores_now(double seconds) {
  const CpuTimes before = cpu_times();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  return other_processes_cores(before, cpu_times());
}

bool calibration_is_quiet(const nlohmann::json& doc) {
  if (!doc.is_object()) return false;
  const auto it = doc.find("verdict");
  // A calibration of an earlier release recorded no conditions: taken as it was taken then.
  return it == doc.end() || !it->is_object() || it->value("state", "quiet") == "quiet";
}

bool calibration_is_stale(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("stale") && doc["stale"].is_object();
}

std::string why_measure_again(const nlohmann::json& doc, std::chrono::seconds age,
                              const std::function<bool()>& quiet_now) {
  if (calibration_is_stale(doc))
    return "it is stale (" + doc["stale"].value("reason", "a point beat it") + ")";
  if (calibration_is_quiet(doc)) return "";
  const nlohmann::json conditions = doc.value("conditions", nlohmann::json::object());
  const auto others = conditions.find("other_processes_cores");
  // (A calibration that recorded no conditions counts as loaded: measured again once quiet.)
  const bool was_loaded = others == conditions.end() || !others->is_number() ||
                          others->get<double>() > kMaxOtherProcessCores;
  if (!was_loaded && age < kRemeasureNoisyAfter) return "";
  if (!quiet_now()) return "";
  return was_loaded
             ? "it was measured under load and the machine is quiet now"
             : "its samples spread on a quiet machine a day ago or more, and it is quiet now";
}

CalibrationJudgement judge_cpu_calibration(const nlohmann::json& doc,
                                           const nlohmann::json& previous,
                                           const nlohmann::json& observed, double core_peak_sp) {
  CalibrationJudgement j;
  std::set<int> rows;
  std::vector<int> all;
  if (!doc.contains("ceilings") || !doc["ceilings"].is_array()) return j;
  for (const auto& row : doc["ceilings"]) {
    const int t = static_cast<int>(number(row, "threads"));
    all.push_back(t);
    for (const auto& f : kCpuFigures) {
      const double spread = number(row, f.spread);
      if (spread > kMaxCalibrationSpread) {
        j.noisy.push_back(fmt::format(
            "{} at {}: its median repetition {:.1f} % slower than its best (more than {:.0f} %)",
            f.name, threads_text(t), 100 * spread, 100 * kMaxCalibrationSpread));
        rows.insert(t);
      }
    }
    // Above what the cores can do at all: a clock or timer gone wrong, never a fast machine.
    if (core_peak_sp > 0) {
      for (const auto& [key, name, peak] :
           {std::tuple{"sgemm_gflops", "SGEMM", core_peak_sp * t},
            std::tuple{"dgemm_gflops", "DGEMM", core_peak_sp / 2 * t}}) {
        const double v = number(row, key);
        if (v > peak)
          j.implausible.push_back(fmt::format(
              "{} at {}, {:.1f} GFLOP/s, is above the theoretical peak of {} ({:.1f} GFLOP/s)",
              name, threads_text(t), v, threads_text(t), peak));
      }
    }
    if (usable_lower_bound(previous)) {
      const nlohmann::json before = row_at(previous, t);
      for (const auto& f : kCpuFigures) {
        const double now = number(row, f.key), then = before.is_null() ? 0 : number(before, f.key);
        if (then > 0 && now < then * (1 - kMaxCalibrationDrop)) {
          j.noisy.push_back(fmt::format(
              "{} at {}, {:.1f} {}, is {:.0f} % below the {:.1f} {} the quiet calibration of {} "
              "measured",
              f.name, threads_text(t), now, f.unit, 100 * (1 - now / then), then, f.unit,
              previous.value("measured", "before")));
          rows.insert(t);
        }
      }
    }
    if (observed.is_object())
      for (const auto& f : kCpuFigures) {
        if (!observed.contains(f.key) || !observed[f.key].is_object()) continue;
        const auto entry = observed[f.key].find(std::to_string(t));
        if (entry == observed[f.key].end()) continue;
        const double now = number(row, f.key);
        if (now * kStaleMargin < number(*entry, "value")) {
          j.noisy.push_back(observed_reason(fmt::format("{} at {}", f.name, threads_text(t)), now,
                                            f.unit, *entry));
          rows.insert(t);
        }
      }
  }
  const nlohmann::json conditions = doc.value("conditions", nlohmann::json::object());
  const double others = number(conditions, "other_processes_cores");
  if (others > kMaxOtherProcessCores) {
    // First: the cause, where the spreads are its symptoms.
    j.noisy.insert(
        j.noisy.begin(),
        fmt::format(
            "other processes used {:.2f} cores' worth of CPU while it measured (more than {:.1f}; "
            "load average {} before, {} after)",
            others, kMaxOtherProcessCores,
            load_text(conditions.value("load_average_before", nlohmann::json())),
            load_text(conditions.value("load_average_after", nlohmann::json()))));
    j.rows = all;
  } else {
    j.rows.assign(rows.begin(), rows.end());
  }
  return j;
}

CalibrationJudgement judge_gpu_calibration(const nlohmann::json& doc,
                                           const nlohmann::json& previous,
                                           const nlohmann::json& observed) {
  CalibrationJudgement j;
  const nlohmann::json ceilings = doc.value("ceilings", nlohmann::json::object());
  const double spread = number(doc, "spread");
  if (spread > kMaxCalibrationSpread)
    j.noisy.push_back(fmt::format("the samples of a figure spread by {:.1f} % (more than {:.0f} %)",
                                  100 * spread, 100 * kMaxCalibrationSpread));
  const double theory = number(ceilings, "theoretical_bw_gbps");
  if (theory > 0 && number(ceilings, "copy_gbps") > theory)
    j.implausible.push_back(fmt::format(
        "copy, {:.0f} GB/s, is above the theoretical {:.0f} GB/s of the memory (clock × bus)",
        number(ceilings, "copy_gbps"), theory));
  const nlohmann::json before = usable_lower_bound(previous)
                                    ? previous.value("ceilings", nlohmann::json::object())
                                    : nlohmann::json::object();
  for (const auto& f : kGpuFigures) {
    const double now = number(ceilings, f.key), then = number(before, f.key);
    if (then > 0 && now < then * (1 - kMaxCalibrationDrop))
      j.noisy.push_back(fmt::format(
          "{}, {:.1f} {}, is {:.0f} % below the {:.1f} {} the quiet calibration of {} measured",
          f.name, now, f.unit, 100 * (1 - now / then), then, f.unit,
          previous.value("measured", "before")));
    if (observed.is_object() && observed.contains(f.key) && observed[f.key].is_object() &&
        now * kStaleMargin < number(observed[f.key], "value"))
      j.noisy.push_back(observed_reason(f.name, now, f.unit, observed[f.key]));
  }
  return j;
}

double cpu_core_peak_sp_gflops() {
  double mhz = 0;
  {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
    double khz = 0;
    if (in >> khz && khz > 0) mhz = khz / 1000;
  }
  if (mhz <= 0) {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("cpu MHz", 0) == 0) {
        const auto colon = line.find(':');
        if (colon != std::string::npos)
          mhz = std::max(mhz, 1.5 * std::stod(line.substr(colon + 1)));
      }
  }
  return mhz * 1e-3 * 64;
}

}  // namespace runner
