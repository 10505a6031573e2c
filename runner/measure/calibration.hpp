#pragma once
// Measured ceilings of the machine a run measures on, the denominators of pct_peak_bw and
// pct_peak_flops (runner/results/ceilings.hpp). `runner calibrate` measures them; a run measures
// those of its devices once, when none are stored yet. One JSON file per device model, under the
// calibration folder (results/calibration by default):
//   gpu-<model>.json          e.g. gpu-nvidia-h100-80gb-hbm3.json
//   cpu-<model>-<cores>c.json  the CPU at the cores this process may use (a Slurm allocation of
//                              8 cores of a 64-core node is its own machine as far as ceilings go)
// docs/measurement.md describes each figure.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/api/point.hpp"
#include "runner/api/registry.hpp"

namespace runner {

// "NVIDIA H100 80GB HBM3" → "nvidia-h100-80gb-hbm3": lower case, runs of anything else than
// letters and digits become one '-'.
std::string model_slug(std::string_view model);
std::filesystem::path gpu_calibration_path(const std::filesystem::path& dir,
                                           std::string_view gpu_name);
std::filesystem::path cpu_calibration_path(const std::filesystem::path& dir,
                                           std::string_view cpu_model, int cores);

// $RUNNER_CALIBRATION_DIR, else results/calibration (next to the default results folders).
std::filesystem::path default_calibration_dir();

// Peak memory bandwidth from the device's properties: memory clock × bus width × 2 (double data
// rate), in GB/s. Not measured, and named as such: pct_theoretical_bw.
double theoretical_bw_gbps(double memory_clock_mhz, double memory_bus_bits);

// Measure in this process and return the calibration document. calibrate_gpu initialises CUDA
// (a process that will fork workers must not call it: see calibration_for_run); it throws when
// there is no GPU or the build has no CUDA.
nlohmann::ordered_json calibrate_gpu();
nlohmann::ordered_json calibrate_cpu(int cores);

// Reads a calibration file; null when absent or unreadable.
nlohmann::ordered_json read_calibration(const std::filesystem::path& file);

struct CalibrationNeeds {
  bool gpu = false, cpu = false;
};
// Which devices a list of points measures on: the GPU when any point is a CUDA one and the
// environment (a worker's hello) has a GPU, the CPU when any point is a CPU one.
CalibrationNeeds calibration_needs(const std::vector<Point>& points, const Registry& registry,
                                   const nlohmann::json& environment);

// The calibration of a run, for its manifest and its records:
//   {"dir": DIR, "gpu": DOC | null, "cpu": DOC | null, "theoretical_bw_gbps": X | null}
// Stored documents are read; with `measure_missing`, those missing are measured first, in a
// child process (this one forks workers, so it must never initialise CUDA), under an exclusive
// lock of DIR/.lock so that concurrent runs (shards of a Slurm array) measure a device once.
// A calibration that fails or is interrupted is warned about and left out: the run goes on.
// The GPU is not measured while a CUDA tool is attached (attached_cuda_tool).
nlohmann::ordered_json calibration_for_run(const std::filesystem::path& dir,
                                           const nlohmann::json& environment,
                                           CalibrationNeeds needs, bool measure_missing);

// "VARIABLE=value" when a CUDA tool that instruments kernels (compute-sanitizer, Nsight Compute)
// is attached to this process, else empty: GPU ceilings measured under one are wrong.
std::string attached_cuda_tool();

}  // namespace runner
