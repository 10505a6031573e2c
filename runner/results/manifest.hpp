#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/api/point.hpp"
#include "runner/results/record.hpp"
#include "runner/results/run_identity.hpp"
#include "runner/spec/config.hpp"

namespace runner {

// manifest.json of a results directory: the config as read, the expanded point list with ids,
// the environment (host, CPU, GPU, compilers, git revision, Slurm ids), a fingerprint for resume,
// and the run's state with counts by status. Rewritten atomically at start and end.
class Manifest {
 public:
  Manifest(std::filesystem::path dir, std::string file_name);
  // `identity`: what a resume compares (runner/run/resume.hpp); stored as "identity" and, for
  // readers of earlier releases, as one hash "fingerprint".
  void describe(const ExperimentSpec& spec, const std::vector<Point>& points,
                const RunIdentity& identity, const std::string& shard_label,
                const nlohmann::json& environment);
  // A resumed run keeps the creation time of the manifest it continues and lists its resumes.
  void continue_from(const std::filesystem::path& previous_manifest);
  // A further top-level section, e.g. "calibration" (the ceilings the records are measured
  // against).
  void add(const std::string& key, nlohmann::ordered_json value) { doc_[key] = std::move(value); }
  void write(const std::string& state, const std::vector<Record>& records);
  std::filesystem::path path() const { return dir_ / file_name_; }

  // The list of points of a matrix as the manifest stores it.
  static nlohmann::ordered_json point_list(const std::vector<Point>& points);

 private:
  std::filesystem::path dir_;
  std::string file_name_;
  nlohmann::ordered_json doc_;
};

}  // namespace runner
