#include "runner/results/manifest.hpp"

#include <fstream>
#include <map>

#include "runner/measure/environment.hpp"  // utc_now
#include "runner/measure/host_facts.hpp"
#include "runner/results/record_files.hpp"

namespace runner {

Manifest::Manifest(std::filesystem::path dir, std::string file_name)
    : dir_(std::move(dir)), file_name_(std::move(file_name)) {}

nlohmann::ordered_json Manifest::point_list(const std::vector<Point>& points) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& p : points)
    list.push_back({{"point_id", p.id()},
                    {"key", p.key()},
                    {"kernel", p.kernel},
                    {"variant", p.variant},
                    {"is_baseline", p.is_baseline}});
  return list;
}

void Manifest::describe(const ExperimentSpec& spec, const std::vector<Point>& points,
                        const RunIdentity& identity, const std::string& shard_label,
                        const nlohmann::json& environment) {
  doc_ = nlohmann::ordered_json::object();
  doc_["experiment"] = spec.experiment;
  doc_["created"] = utc_now();
  doc_["config_file"] = spec.file.string();
  doc_["fingerprint"] = identity.fingerprint();
  doc_["identity"] = identity.to_json();
  if (!shard_label.empty()) doc_["shard"] = shard_label;
  doc_["config"] = spec.as_json;
  doc_["config_text"] = spec.text;
  doc_["environment"] = environment;
  doc_["points"] = point_list(points);
}

void Manifest::write(const std::string& state, const std::vector<Record>& records) {
  doc_["state"] = state;
  doc_["updated"] = utc_now();
  std::map<std::string, int> counts;
  for (const auto& r : records) ++counts[text_of(r, "status")];
  doc_["counts"] = counts;
  doc_["records"] = records.size();
  // The load as the run starts and as it ends (each write updates the end): with the
  // environment's governor and caches, why a run was noisy (1, 5 and 15 minutes).
  const auto load = load_average();
  const nlohmann::ordered_json now = {load[0], load[1], load[2]};
  if (!doc_.contains("load_average")) doc_["load_average"] = {{"start", now}, {"end", nullptr}};
  if (state != "running") doc_["load_average"]["end"] = now;
  write_file_atomically(path(), doc_.dump(2) + "\n");
}

void Manifest::continue_from(const std::filesystem::path& previous_manifest) {
  std::ifstream in(previous_manifest);
  if (!in) return;
  try {
    const auto old = nlohmann::ordered_json::parse(in);
    if (old.contains("created")) doc_["created"] = old["created"];
    nlohmann::ordered_json resumed = old.value("resumed", nlohmann::ordered_json::array());
    resumed.push_back(utc_now());
    doc_["resumed"] = resumed;
  } catch (const nlohmann::json::exception&) {
  }
}

}  // namespace runner
