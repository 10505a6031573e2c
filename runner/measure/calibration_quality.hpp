#pragma once
// Whether a calibration can be believed. A ceiling is the most the machine does, so one measured
// while something else ran is too low, and every point of the runs that use it reads above 100 %
// (seen: one-thread SGEMM at 51 GFLOP/s on a loaded 2-core machine that had measured 103.5 three
// minutes earlier). A calibration records the conditions it ran in (load average, how much CPU
// other processes took, the spread of its repetitions) and is judged:
//
//   noisy        the median repetition more than 5 % slower than the best, other processes took
//                more than a fifth of a core meanwhile, a figure more than 10 % below the same
//                figure of an earlier quiet calibration of this machine, or below a point this
//                machine was measured to reach: measured again; if it stays so, it never replaces
//                a quiet calibration, and where there is none it is kept as "provisional" (used,
//                flagged in records and reports, measured again by the first run that finds the
//                machine quiet)
//   implausible  above the theoretical peak of the hardware (a clock or timer gone wrong):
//                measured again; if it stays so, refused with the reason
//
// A stored calibration becomes "stale" when a run's point beats it by more than 10 % where
// nothing explains it (runner/results/stale_ceilings.hpp): the next run measures it again.
#include <array>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/measure/host_facts.hpp"

namespace runner {

inline constexpr double kMaxCalibrationSpread = 0.05;  // median repetition / best - 1
inline constexpr double kMaxOtherProcessCores = 0.2;   // cores' worth of CPU used by others
inline constexpr double kMaxCalibrationDrop = 0.10;    // below an earlier figure of the machine
inline constexpr double kStaleMargin = 1.10;           // a point this far above its ceiling
// A provisional calibration measured on a quiet machine (the device's own samples spread) is
// measured again by a run only once it is this old (`runner calibrate` measures it any time).
inline constexpr std::chrono::hours kRemeasureNoisyAfter{24};

// What else happened on the machine while a calibration measured.
class ConditionWatch {
 public:
  ConditionWatch();
  // {"load_average_before": [1, 5, 15 min], "load_average_after": [...],
  //  "other_processes_cores": X, "seconds": S}
  nlohmann::ordered_json stop() const;

 private:
  std::array<double, 3> load_;
  CpuTimes times_;
  double start_s_;
};

// Cores' worth of CPU other processes use now, over `seconds`: whether the machine is quiet
// enough to calibrate (a provisional calibration is measured again once it is).
double other_processes_cores_now(double seconds);

// Why a stored calibration (a document of runner/measure/calibration.cpp) should be measured
// again before a run uses it; empty: it is fine. Stale: again. Provisional because other
// processes used the machine: again once it is quiet. Provisional on a quiet machine (the
// device's own samples spread): measuring again at once mostly gives the same, and cost every run
// its seconds (each GPU of a node, up to three attempts each), so again once `age` (since it was
// written) reaches kRemeasureNoisyAfter and the machine is quiet. `quiet_now` watches the machine
// (half a second) and is called only when the answer depends on it.
std::string why_measure_again(const nlohmann::json& doc, std::chrono::seconds age,
                              const std::function<bool()>& quiet_now);

struct CalibrationJudgement {
  std::vector<std::string> noisy, implausible;  // why, in words; empty when it is neither
  std::vector<int> rows;  // CPU: thread counts worth measuring again (all when the load was high)
  bool quiet() const { return noisy.empty(); }
  bool plausible() const { return implausible.empty(); }
};

// A CPU document of runner/measure/calibration.cpp (ceilings per thread count with their
// spreads, conditions). `previous`: the stored document it would replace (null: none), a lower
// bound only where it was quiet and not stale; `observed`: the maxima of points measured on the
// machine ({"sgemm_gflops": {"1": {"value": X, ...}}, "dgemm_gflops": ...}); `core_peak_sp`: the
// theoretical single-precision GFLOP/s of one core (0: unknown).
CalibrationJudgement judge_cpu_calibration(const nlohmann::json& doc,
                                           const nlohmann::json& previous,
                                           const nlohmann::json& observed, double core_peak_sp);
// A GPU document: its spread, its conditions, copy against the theoretical bandwidth, and the
// figures against the previous quiet calibration and the observed maxima.
CalibrationJudgement judge_gpu_calibration(const nlohmann::json& doc,
                                           const nlohmann::json& previous,
                                           const nlohmann::json& observed);

// The most single-precision GFLOP/s one core of this machine can do in theory: its highest clock
// (cpufreq's maximum, else /proc/cpuinfo's current one plus 50 % for turbo) × 64 flops a cycle
// (two 512-bit FMA units, the most of any x86 core). An upper bound that catches a clock or timer
// gone wrong, not a prediction; 0 when no clock is known.
double cpu_core_peak_sp_gflops();

// Whether a stored document was measured in the quiet, and is not stale.
bool calibration_is_quiet(const nlohmann::json& doc);
bool calibration_is_stale(const nlohmann::json& doc);

}  // namespace runner
