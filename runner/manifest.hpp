#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/config.hpp"
#include "runner/point.hpp"
#include "runner/record.hpp"

namespace runner {

// manifest.json of a results directory: the config as read, the expanded point list with ids,
// the environment (host, CPU, GPU, compilers, git revision, Slurm ids), a fingerprint for resume,
// and the run's state with counts by status. Rewritten atomically at start and end.
class Manifest {
 public:
  Manifest(std::filesystem::path dir, std::string file_name);
  void describe(const ExperimentSpec& spec, const std::vector<Point>& points,
                const std::string& fingerprint, const std::string& shard_label,
                const nlohmann::json& environment);
  // A further top-level section, e.g. "calibration" (the ceilings the records are measured against).
  void add(const std::string& key, nlohmann::ordered_json value) { doc_[key] = std::move(value); }
  void write(const std::string& state, const std::vector<Record>& records);
  std::filesystem::path path() const { return dir_ / file_name_; }

  static std::optional<std::string> read_fingerprint(const std::filesystem::path& manifest_file);
  // The list of points of a matrix as the manifest stores it.
  static nlohmann::ordered_json point_list(const std::vector<Point>& points);

 private:
  std::filesystem::path dir_;
  std::string file_name_;
  nlohmann::ordered_json doc_;
};

}  // namespace runner
