#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace runner::slurm {

// Resources and options of the shard jobs: the YAML `slurm:` section, then the settings of the
// first submission (on --resume), then the command line, each overriding the one before.
struct JobSettings {
  std::string partition, account, qos, time, gres, constraint, job_name;
  std::string mem, exclude;  // --mem and --exclude; "" for none
  int cpus = 0;              // cores per shard (= OMP_NUM_THREADS)
  int throttle = 0;          // at most this many shards at once (%P); 0: no limit
  int gpus_per_task = 0;     // --gpus-per-task: a shard's GPUs, which it spreads over; 0: none
  std::vector<std::string> extra;  // further sbatch options, one #SBATCH line each
  std::vector<std::string> setup;  // shell lines before the runner starts (slurm.setup), verbatim

  nlohmann::ordered_json to_json() const;
  static JobSettings from_json(const nlohmann::json& j);
};

// One job array: element k runs shard `shards[k]` when `shard_map` names a map file, otherwise
// element i runs shard i (the readable case: job 123_7 is shard 7).
struct ArrayJob {
  std::string job_id;  // empty until sbatch answered
  std::string array;   // the --array value, e.g. "0-15%4", "3,7", "0-1"
  std::vector<int> shards;
  std::string shard_map;  // relative to the run directory, e.g. slurm/shard_map.part1.txt; or ""
  std::string script;     // relative to the run directory, e.g. slurm/shard.sbatch

  // Array index that runs `shard` in this array, if any.
  std::optional<int> index_of(int shard) const;
  // The shard array index `index` runs, if any.
  std::optional<int> shard_at(int index) const;
};

// One `runner submit` (the first) or `runner submit --resume` (the next ones).
struct Submission {
  std::string submitted;  // UTC time
  bool resume = false;
  bool force_mix = false;  // --force-mix: shards and collect accept records of another build
  JobSettings settings;
  std::vector<ArrayJob> arrays;
  std::string collect_job_id, collect_script;
  // `runner cancel`: when it cancelled jobs of this submission ("" if never), and the shards
  // whose element was still pending or running then (the ones status calls cancelled).
  std::string cancelled;
  std::vector<int> cancelled_shards;
};

// A point of the matrix and the shard that runs it.
struct PlannedPoint {
  std::string point_id, key, kernel, variant;
  int shard = 0;
};

// Where a shard last ran (or is queued): the array job and element of its latest submission.
struct ShardElement {
  std::size_t submission = 0;  // 0-based
  std::string array_job_id;
  int index = 0;
  std::string tag() const;  // "123_7", or "-" when the job id is unknown
};

// A results directory made by `runner submit`: manifest.json holds the plan (every point with its
// shard, the config text, the shard count) and a `slurm` object with every submission, so that
// `status`, `collect` and `submit --resume` need nothing but the directory. `collect` adds the
// merged counts to the same file, as a local run's manifest has them.
class SlurmRun {
 public:
  // Reads DIR/manifest.json; throws std::runtime_error when DIR was not made by `runner submit`.
  static SlurmRun load(const std::filesystem::path& dir);
  // A fresh plan: `document` is the manifest to be, with "points" (each with its "shard") and
  // "slurm": {"num_shards": N, ...}; submissions are added with submissions().
  SlurmRun(std::filesystem::path dir, nlohmann::ordered_json document);

  // Rewrites DIR/manifest.json atomically with the plan and submissions.
  void save();

  const std::filesystem::path& dir() const { return dir_; }
  nlohmann::ordered_json& document() { return doc_; }
  const nlohmann::ordered_json& document() const { return doc_; }
  int num_shards() const { return num_shards_; }
  const std::vector<PlannedPoint>& points() const { return points_; }
  std::vector<Submission>& submissions() { return submissions_; }
  const std::vector<Submission>& submissions() const { return submissions_; }
  std::filesystem::path config_copy() const { return dir_ / "config.yaml"; }

  // The latest submitted element that runs `shard`; nullopt if no submission holds it.
  std::optional<ShardElement> latest_element(int shard) const;

 private:
  std::filesystem::path dir_;
  nlohmann::ordered_json doc_;
  std::vector<PlannedPoint> points_;
  int num_shards_ = 1;
  std::vector<Submission> submissions_;
};

}  // namespace runner::slurm
