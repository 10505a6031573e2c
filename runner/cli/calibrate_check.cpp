// `runner calibrate --check`: whether the stored ceilings of this machine can be believed, without
// measuring them again: present, measured in the quiet, not stale, plausible, and (for the CPU)
// not below what a short probe measures now. Exit 0 when they hold, 1 with each problem and what
// to do when one does not (a check that fails, as compare's gate).
#include <string>
#include <vector>

#include <fmt/format.h>

#include "runner/api/gpu_info.hpp"
#include "runner/base/exit_codes.hpp"
#include "runner/cli/commands.hpp"
#include "runner/measure/calibration.hpp"
#include "runner/measure/calibration_cpu.hpp"
#include "runner/measure/calibration_quality.hpp"
#include "runner/measure/environment.hpp"

namespace runner::cli {

namespace {

std::string joined(const nlohmann::json& reasons) {
  std::string text;
  for (const auto& r : reasons) text += (text.empty() ? "" : "; ") + r.get<std::string>();
  return text;
}

// The stored document's state in words, and its problems.
void judge_stored(const StoredCalibration& stored, std::vector<std::string>& problems) {
  const nlohmann::json& doc = stored.doc;
  const nlohmann::json verdict = doc.value("verdict", nlohmann::json::object());
  fmt::print("  {}\n  measured {} on {}{}\n", stored.file.string(), doc.value("measured", "?"),
             doc.value("host", "?"),
             verdict.is_object() && verdict.contains("state")
                 ? fmt::format(", {}", verdict.value("state", ""))
                 : " (an earlier release: no conditions recorded)");
  if (!calibration_is_quiet(doc))
    problems.push_back(fmt::format("measured under load: {}", joined(verdict["reasons"])));
  if (calibration_is_stale(doc))
    problems.push_back("stale: " + doc["stale"].value("reason", "a point beat it"));
  const nlohmann::json observed = doc.value("observed", nlohmann::json::object());
  const CalibrationJudgement now =
      doc.value("kind", "") == "gpu"
          ? judge_gpu_calibration(doc, nullptr, observed)
          : judge_cpu_calibration(doc, nullptr, observed, cpu_core_peak_sp_gflops());
  for (const auto& r : now.implausible) problems.push_back("implausible: " + r);
  // Of the noisy reasons, those a stored document can still show: a point measured above it.
  for (const auto& r : now.noisy)
    if (r.find("below a point measured on this machine") != std::string::npos)
      problems.push_back("too low: " + r);
}

// One thread of the CPU measured again, briefly: a stored figure this much below what the
// machine does now is stale, whatever its verdict said.
void probe_cpu(const nlohmann::json& doc, std::vector<std::string>& problems) {
  nlohmann::json stored;
  for (const auto& row : doc.value("ceilings", nlohmann::json::array()))
    if (row.value("threads", 0) == 1) stored = row;
  if (stored.is_null()) return;
  const ConditionWatch watch;
  const CpuCeilingsAt now = measure_cpu_ceilings({1}).front();
  const double others = watch.stop().value("other_processes_cores", 0.0);
  fmt::print(
      "  probe at 1 thread now: copy {:.1f} GB/s, SGEMM {:.1f}, DGEMM {:.1f} GFLOP/s "
      "(stored {:.1f}, {:.1f}, {:.1f}; other processes {:.2f} cores)\n",
      now.copy_gbps, now.sgemm_gflops, now.dgemm_gflops, stored.value("copy_gbps", 0.0),
      stored.value("sgemm_gflops", 0.0), stored.value("dgemm_gflops", 0.0), others);
  for (const auto& [name, measured, key] :
       {std::tuple{"copy", now.copy_gbps, "copy_gbps"},
        std::tuple{"SGEMM", now.sgemm_gflops, "sgemm_gflops"},
        std::tuple{"DGEMM", now.dgemm_gflops, "dgemm_gflops"}}) {
    const double then = stored.value(key, 0.0);
    if (then > 0 && measured > then * kStaleMargin)
      problems.push_back(
          fmt::format("stale: {} at 1 thread measures {:.1f} now, {:.0f} % above the stored {:.1f}",
                      name, measured, 100 * (measured / then - 1), then));
  }
}

}  // namespace

int calibrate_check_command(const CalibrateArguments& args) {
  const CalibrationStore store(args.out);
  const std::string host = environment().host;
  std::vector<std::string> all_problems;
  auto check = [&](const CalibrationKey& key, bool probe) {
    fmt::print("{} {}\n", key.kind == "gpu" ? "GPU" : "CPU", key.device);
    std::vector<std::string> problems;
    const auto stored = store.find(key);
    if (!stored) {
      problems.push_back(fmt::format("no calibration of this machine in {}", store.describe()));
    } else {
      judge_stored(*stored, problems);
      if (probe) probe_cpu(stored->doc, problems);
    }
    for (const auto& p : problems) fmt::print("  {}\n", p);
    if (problems.empty()) fmt::print("  ok\n");
    for (const auto& p : problems) all_problems.push_back(key.kind + ": " + p);
  };
  if (!args.cpu_only && gpu_info().present)
    check(gpu_calibration_key(host, gpu_info().name, gpu_info().uuid), false);
  if (!args.gpu_only)
    check(cpu_calibration_key(host, environment().cpu_model, environment().cores), true);
  if (all_problems.empty()) return exit_code::kOk;
  fmt::print(
      "{} problem{}: `runner calibrate` measures again (on a quiet machine: it keeps a "
      "quiet calibration over one measured under load)\n",
      all_problems.size(), all_problems.size() == 1 ? "" : "s");
  return exit_code::kPointFailed;
}

}  // namespace runner::cli
