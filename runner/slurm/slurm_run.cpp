#include "runner/slurm/slurm_run.hpp"

#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "runner/api/point.hpp"
#include "runner/results/record_files.hpp"

namespace runner::slurm {

namespace {

template <typename T>
T get_or(const nlohmann::json& j, const char* key, T fallback) {
  return j.contains(key) && !j[key].is_null() ? j[key].get<T>() : fallback;
}

}  // namespace

nlohmann::ordered_json JobSettings::to_json() const {
  return {{"partition", partition},
          {"account", account},
          {"qos", qos},
          {"time", time},
          {"gres", gres},
          {"constraint", constraint},
          {"job_name", job_name},
          {"cpus", cpus},
          {"throttle", throttle},
          {"extra", extra},
          {"mem", mem},
          {"exclude", exclude},
          {"setup", setup},
          {"gpus_per_task", gpus_per_task}};
}

JobSettings JobSettings::from_json(const nlohmann::json& j) {
  JobSettings s;
  s.partition = get_or<std::string>(j, "partition", "");
  s.account = get_or<std::string>(j, "account", "");
  s.qos = get_or<std::string>(j, "qos", "");
  s.time = get_or<std::string>(j, "time", "");
  s.gres = get_or<std::string>(j, "gres", "");
  s.constraint = get_or<std::string>(j, "constraint", "");
  s.job_name = get_or<std::string>(j, "job_name", "");
  s.cpus = get_or<int>(j, "cpus", 0);
  s.throttle = get_or<int>(j, "throttle", 0);
  s.gpus_per_task = get_or<int>(j, "gpus_per_task", 0);
  s.extra = get_or<std::vector<std::string>>(j, "extra", {});
  // Absent from the submissions of earlier releases: none.
  s.mem = get_or<std::string>(j, "mem", "");
  s.exclude = get_or<std::string>(j, "exclude", "");
  s.setup = get_or<std::vector<std::string>>(j, "setup", {});
  return s;
}

std::optional<int> ArrayJob::index_of(int shard) const {
  for (std::size_t k = 0; k < shards.size(); ++k)
    if (shards[k] == shard) return shard_map.empty() ? shard : static_cast<int>(k);
  return std::nullopt;
}

std::optional<int> ArrayJob::shard_at(int index) const {
  for (int shard : shards)
    if (index_of(shard) == index) return shard;
  return std::nullopt;
}

std::string ShardElement::tag() const {
  return array_job_id.empty() ? std::string("-") : fmt::format("{}_{}", array_job_id, index);
}

SlurmRun::SlurmRun(std::filesystem::path dir, nlohmann::ordered_json document)
    : dir_(std::move(dir)), doc_(std::move(document)) {
  const auto& slurm = doc_.at("slurm");
  num_shards_ = slurm.at("num_shards").get<int>();
  // Plans of earlier releases hold bare 16-hex-digit ids; the records read back have them with
  // their "p" (read_jsonl), so the plan must too, or every record would be outside it.
  for (const auto& p : doc_.at("points"))
    points_.push_back({normalize_point_id(p.at("point_id").get<std::string>()),
                       p.at("key").get<std::string>(), get_or<std::string>(p, "kernel", ""),
                       get_or<std::string>(p, "variant", ""), p.at("shard").get<int>()});
  if (slurm.contains("submissions"))
    for (const auto& s : slurm["submissions"]) {
      Submission sub;
      sub.submitted = get_or<std::string>(s, "submitted", "");
      sub.resume = get_or<bool>(s, "resume", false);
      sub.force_mix = get_or<bool>(s, "force_mix", false);
      sub.settings = JobSettings::from_json(s.value("settings", nlohmann::json::object()));
      sub.collect_job_id = get_or<std::string>(s, "collect_job_id", "");
      sub.collect_script = get_or<std::string>(s, "collect_script", "");
      sub.cancelled = get_or<std::string>(s, "cancelled", "");
      sub.cancelled_shards = get_or<std::vector<int>>(s, "cancelled_shards", {});
      for (const auto& a : s.value("arrays", nlohmann::json::array()))
        sub.arrays.push_back(
            {get_or<std::string>(a, "job_id", ""), get_or<std::string>(a, "array", ""),
             get_or<std::vector<int>>(a, "shards", {}), get_or<std::string>(a, "shard_map", ""),
             get_or<std::string>(a, "script", "")});
      submissions_.push_back(std::move(sub));
    }
}

SlurmRun SlurmRun::load(const std::filesystem::path& dir) {
  const auto file = dir / "manifest.json";
  std::ifstream in(file);
  if (!in)
    throw std::runtime_error(fmt::format(
        "{}: no manifest.json: not a results directory made by `runner submit`", dir.string()));
  nlohmann::ordered_json doc;
  try {
    doc = nlohmann::ordered_json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: not valid JSON: {}", file.string(), e.what()));
  }
  if (!doc.is_object() || !doc.contains("slurm") || !doc["slurm"].contains("num_shards") ||
      !doc.contains("points"))
    throw std::runtime_error(
        fmt::format("{}: has no `slurm` plan: this results directory was made by a local run, not "
                    "by `runner submit`",
                    file.string()));
  try {
    return SlurmRun(dir, std::move(doc));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: damaged `slurm` plan: {}", file.string(), e.what()));
  }
}

void SlurmRun::save() {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& s : submissions_) {
    nlohmann::ordered_json arrays = nlohmann::ordered_json::array();
    for (const auto& a : s.arrays)
      arrays.push_back({{"job_id", a.job_id},
                        {"array", a.array},
                        {"shards", a.shards},
                        {"shard_map", a.shard_map},
                        {"script", a.script}});
    list.push_back({{"submitted", s.submitted},
                    {"resume", s.resume},
                    {"force_mix", s.force_mix},
                    {"settings", s.settings.to_json()},
                    {"arrays", arrays},
                    {"collect_job_id", s.collect_job_id},
                    {"collect_script", s.collect_script}});
    if (!s.cancelled.empty()) {
      list.back()["cancelled"] = s.cancelled;
      list.back()["cancelled_shards"] = s.cancelled_shards;
    }
  }
  doc_["slurm"]["submissions"] = list;
  write_file_atomically(dir_ / "manifest.json", doc_.dump(2) + "\n");
}

std::optional<ShardElement> SlurmRun::latest_element(int shard) const {
  for (std::size_t s = submissions_.size(); s-- > 0;)
    for (const auto& a : submissions_[s].arrays)
      if (const auto index = a.index_of(shard)) return ShardElement{s, a.job_id, *index};
  return std::nullopt;
}

}  // namespace runner::slurm
