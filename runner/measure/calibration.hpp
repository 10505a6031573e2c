#pragma once
// Measured ceilings of the machine a run measures on, the denominators of pct_peak_bw and
// pct_peak_flops (runner/results/ceilings.hpp). `runner calibrate` measures them; a run measures
// those of its devices once, when this machine has none stored yet, when the stored ones are
// stale, or when they were measured under load and the machine is quiet now. They are kept per
// machine and device (runner/measure/calibration_store.hpp), judged before they are kept
// (runner/measure/calibration_quality.hpp). docs/measurement.md describes each figure.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/api/point.hpp"
#include "runner/api/registry.hpp"
#include "runner/measure/calibration_store.hpp"

namespace runner {

// Peak memory bandwidth from the device's properties: memory clock × bus width × 2 (double data
// rate), in GB/s. Not measured, and named as such: pct_theoretical_bw.
double theoretical_bw_gbps(double memory_clock_mhz, double memory_bus_bits);

// Measure in this process once and return the document, with the conditions it ran in
// ("conditions": load average before and after, other processes' CPU) and its spreads.
// calibrate_gpu initialises CUDA (a process that will fork workers must not call it: see
// calibration_for_run); it throws when there is no GPU or the build has no CUDA.
nlohmann::ordered_json calibrate_gpu();
nlohmann::ordered_json calibrate_cpu(int cores);

// Measurements of one device in all, when the first is noisy or implausible:
// $RUNNER_CALIBRATION_ATTEMPTS, default 3.
int calibration_attempts();

// Measures a device ("cpu" or "gpu"), judges it against `previous` (the stored document it would
// replace, or null) and measures again while it is noisy or implausible, up to `attempts` times;
// returns the best attempt with its verdict:
//   "verdict": {"state": "quiet" | "provisional" | "refused", "reasons": [...], "attempts": N}
// (provisional: noisy; refused: implausible), and the maxima `previous` observed carried over.
nlohmann::ordered_json calibrate_judged(const std::string& kind, int cores,
                                        const nlohmann::json& previous, int attempts);

// What becomes of a judged measurement, given what the store holds for the device.
struct CalibrationDecision {
  bool store = false;   // write the measurement (quiet, or provisional where nothing better is)
  std::string message;  // for a provisional, kept-previous or refused measurement: why
};
// Quiet: stored. Provisional: stored unless a quiet, current calibration is there (never replaced
// by one measured under load). Refused: not stored. `force` stores any.
CalibrationDecision decide_calibration(const nlohmann::json& judged,
                                       const std::optional<StoredCalibration>& previous,
                                       bool force);

// Measures one device in this process (calibrate_judged), decides and stores as
// decide_calibration says: what `runner calibrate` does, and a run's calibration child.
struct CalibrationResult {
  nlohmann::ordered_json doc;  // the judged measurement
  CalibrationDecision decision;
  std::filesystem::path file;  // where it was stored; empty when it was not
};
CalibrationResult calibrate_and_store(const CalibrationStore& store, const CalibrationKey& key,
                                      int cores, bool force);

struct CalibrationNeeds {
  bool gpu = false, cpu = false;
};
// Which devices a list of points measures on: the GPU when any point is a CUDA one and the
// environment (a worker's hello) has a GPU, the CPU when any point is a CPU one.
CalibrationNeeds calibration_needs(const std::vector<Point>& points, const Registry& registry,
                                   const nlohmann::json& environment);

// The calibration of a run, for its manifest and its records:
//   {"store": FOLDERS, "gpu": DOC | null, "cpu": DOC | null, "theoretical_bw_gbps": X | null,
//    "files": {"cpu": FILE, "gpu": FILE}}
// from the store of `explicit_dir` (empty: this machine's: runner/measure/calibration_store.hpp).
// With `measure`, a device with no calibration, a stale one, or a provisional one while the
// machine is quiet now is measured first, in a child process (this one forks workers, so it must
// never initialise CUDA), under the store's lock so that concurrent runs (shards of a Slurm array
// on one node) measure a device once. A calibration that fails, is refused or is interrupted is
// warned about and left out (or the previous one kept): the run goes on. The GPU is not measured
// while a CUDA tool is attached (attached_cuda_tool). The documents used are copied into
// `results_folder`/calibration/ (none when it is empty).
nlohmann::ordered_json calibration_for_run(const std::filesystem::path& explicit_dir,
                                           const nlohmann::json& environment,
                                           CalibrationNeeds needs, bool measure,
                                           const std::filesystem::path& results_folder = {});

// "VARIABLE=value" when a CUDA tool that instruments kernels (compute-sanitizer, Nsight Compute)
// is attached to this process, else empty: GPU ceilings measured under one are wrong.
std::string attached_cuda_tool();

}  // namespace runner
