#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/api/dtype.hpp"
#include "runner/api/measure_mode.hpp"
#include "runner/spec/axes.hpp"
#include "runner/spec/config_error.hpp"
#include "runner/spec/gpu_request.hpp"

namespace runner {

// A list of values per axis; the sweep is their Cartesian product.
struct Sweep {
  std::vector<std::pair<Axis, std::vector<LocatedValue>>> axes;
  Location where;
};

// `repeat:` — the sampling rule of every point (runner/measure/sampling.hpp, docs/measurement.md).
struct SamplingRule {
  int warmup = 2;             // untimed runs before the first sample
  int min_samples = 5;        // always take at least this many
  int max_samples = 100;      // never more than this many
  double target_rsd = 0.005;  // stop once stddev/mean falls to this ...
  double min_seconds = 0.05;  // ... and the samples have timed at least this long together;
  double max_seconds = 2.0;   // give up on the rsd once sampling took this long (wall clock)
};

// `baseline:` — the variant (with optional fixed axis values) that speedup is measured against.
struct BaselineSpec {
  std::string variant;
  std::vector<std::pair<Axis, LocatedValue>> fixed;
  Location where;
};

// `slurm:` — defaults for `runner submit`.
struct SlurmSpec {
  std::string partition, account, qos, time, gres, constraint;
  std::string mem;                 // --mem (runner/spec/slurm_values.hpp checks it); "" for none
  std::string exclude;             // --exclude, a Slurm hostlist; "" for none
  int cpus = 0;                    // 0: the largest thread count of the CPU points
  int throttle = 0;                // array throttle %P; 0: none
  int gpus_per_task = 0;           // --gpus-per-task of each shard, which uses them all; 0: none
  std::vector<std::string> extra;  // further sbatch options, verbatim
  // Shell lines run before the runner starts (module loads, a venv): verbatim, in order, in the
  // shard and collect scripts, which start the same runner executable.
  std::vector<std::string> setup;
};

// One entry of `plugins:`: a user's kernel source (.cu, .cpp, .hip) or built library (.so),
// loaded before the matrix is expanded (runner/plugin/plugins.hpp).
struct PluginEntry {
  std::string written;         // as the config writes it
  std::filesystem::path path;  // relative to the config's folder, made absolute
  Location where;
};

struct ExperimentSpec {
  std::filesystem::path file;
  std::string text;        // the file as read (hashed for resume, copied into the manifest)
  std::string experiment;  // name; also the results subfolder
  std::map<Axis, LocatedValue> defaults;  // top-level axis values (kernel: gemm, dtype: float, ...)
  SamplingRule repeat;
  // `measure: cold | hot`; unset: each kernel's own default (KernelInfo::measure_mode()).
  std::optional<MeasureMode> measure;
  std::optional<BaselineSpec> baseline;
  std::uint64_t seed = 42;  // `verify: {seed: N}`: inputs are random, from this seed
  double timeout_s = 120;   // per point
  std::vector<Sweep> sweeps;
  std::vector<Sweep> excludes;  // each entry: a point matching every listed axis is removed
  std::optional<SlurmSpec> slurm;
  std::vector<PluginEntry> plugins;
  // `gpus:` and `gpu_mode:` (runner/spec/gpu_request.hpp); --gpus and --gpu-mode win over them.
  std::optional<GpuRequest> gpus;
  std::optional<GpuMode> gpu_mode;
  nlohmann::json as_json;  // the config as read, for the manifest
};

// Reads and checks a config. Throws ConfigError with the location of the first problem. Checks
// that need the registry (kernel and variant names, axes a variant uses) happen in expand().
ExperimentSpec load_config(const std::filesystem::path& file);
ExperimentSpec parse_config(const std::string& text, const std::string& file_name);

// The values of one axis written as a sweep writes them: one value, a list, ranges ("256",
// "[256, 512]", "{pow2: [128, 1024]}", "[omp_naive, openblas]"), in YAML flow syntax. `origin`
// names where the text came from in a ConfigError ("--only size=..."). The command line's point
// selection reads its values with it (runner/spec/point_filter.hpp).
std::vector<LocatedValue> parse_axis_values(Axis axis, const std::string& text,
                                            const std::string& origin);

}  // namespace runner
