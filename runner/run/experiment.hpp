#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/api/point.hpp"
#include "runner/api/registry.hpp"
#include "runner/base/errors.hpp"
#include "runner/measure/gpu_devices.hpp"
#include "runner/results/record.hpp"
#include "runner/run/progress.hpp"
#include "runner/spec/config.hpp"

namespace runner {

struct RunOptions {
  std::filesystem::path out_dir;  // claimed by run_experiment (runner/run/output_dir.hpp)
  std::string stem = "records";   // file names: <stem>.jsonl, <stem>.csv; "shards/3" for a shard
  std::string shard_label;        // "3/8" when running a shard, for the manifest and messages
  bool resume = false;            // skip points already ok in out_dir
  bool force_mix = false;         // resume even if the config, build or device changed
  Progress::Mode progress = Progress::Mode::off;  // on stderr (runner/run/progress.hpp)
  // Where the measured ceilings are (runner/measure/calibration_store.hpp; empty: this machine's
  // store, whatever the working folder); with `calibrate`, those of the run's devices are
  // measured first when missing, stale, or measured under load while the machine is quiet now.
  std::filesystem::path calibration_dir;
  bool calibrate = true;
  // The config's plugins as loaded (runner/plugin/plugins.hpp plugins_manifest): kept in the
  // manifest; a resume refuses a plugin that changed since.
  nlohmann::json plugins = nlohmann::json::array();
  // The GPUs of the run (runner/measure/gpu_devices.hpp), one worker each: none runs every point
  // in one worker that keeps the runner's environment (its GPU points are skipped where it has no
  // GPU). `gpu_inventory` says what there was to choose from, for the manifest.
  std::vector<GpuDevice> gpus;
  GpuInventory gpu_inventory;
  GpuMode gpu_mode = GpuMode::spread;
  // --only / --set (runner/spec/point_filter.hpp): kept in the manifest, which a resume reads
  // them from; null for the whole config.
  nlohmann::json selection;
};

// Runs `points` into options.out_dir, each in a worker process (runner/run/worker_process.hpp) so
// that a crash, a sticky CUDA error or a hang costs one point; streams records; writes the manifest
// (which lists `all_points`, the whole matrix) at start and end. First claims the folder (lock,
// emptiness, resume checks: runner/run/output_dir.hpp, runner/run/resume.hpp) before any work.
// Returns the exit code (runner/base/exit_codes.hpp): 0 when no point failed, 1 when any failed,
// 128 + N when stopped by signal N; throws UsageError / Refused when the folder cannot be used.
int run_experiment(const ExperimentSpec& spec, const std::vector<Point>& all_points,
                   const std::vector<Point>& points, const Registry& registry,
                   const RunOptions& options);

}  // namespace runner
