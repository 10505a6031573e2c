#include "runner/slurm/collect.hpp"

#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "runner/environment.hpp"
#include "runner/registry.hpp"
#include "runner/relative_metrics.hpp"
#include "runner/results_files.hpp"
#include "runner/slurm/run_lock.hpp"
#include "runner/slurm/shard_exit.hpp"
#include "runner/slurm/shard_results.hpp"
#include "runner/slurm/slurm_run.hpp"
#include "runner/summary.hpp"

namespace runner::slurm {

namespace {

constexpr std::size_t kListedPerShard = 10;

// Why a shard's points are missing, from what it left behind (no Slurm query: collect must work
// on a copy of the directory, too).
std::string missing_reason(const SlurmRun& run, const ShardTally& tally,
                           const std::optional<ShardElement>& element) {
  if (!element) return "never submitted";
  if (element->array_job_id.empty()) return "submission did not complete";
  if (const auto e = read_shard_exit(run.dir(), element->tag())) {
    if (e->exit_code == 143 || e->drained)
      return "drained after SIGTERM (time limit or scancel; exit 143)";
    return fmt::format("ended with exit {}", e->exit_code);
  }
  if (tally.state == "running" || tally.recorded() > 0)
    return "running, or killed (time limit, scancel, node, memory)";
  return "not started, or cancelled before it started";
}

std::string device_of(const nlohmann::json& environment) {
  if (!environment.is_object()) return "";
  const auto gpu = environment.value("gpu", nlohmann::json());
  if (gpu.is_object() && gpu.value("present", false)) return gpu.value("name", "");
  if (gpu.is_string() && !gpu.get<std::string>().empty()) return gpu.get<std::string>();
  return environment.value("cpu_model", "");
}

}  // namespace

int collect_run(const std::filesystem::path& dir) {
  RunLock lock(dir);
  SlurmRun run = SlurmRun::load(dir);
  ShardResults results = ShardResults::read(run);
  for (const auto& w : results.warnings) spdlog::warn("{}", w);

  // Speedup and friends compare a point with its problem's baseline, which may have run in
  // another shard: recompute them over the whole set.
  apply_relative_metrics(results.records, Registry::instance());
  std::string jsonl;
  for (const auto& r : results.records) jsonl += r.dump() + "\n";
  write_file_atomically(dir / "records.jsonl", jsonl);
  write_file_atomically(dir / "records.csv", to_csv(results.records));

  auto& doc = run.document();
  const bool complete = results.missing.empty();
  doc["state"] = complete ? "complete" : "partial";
  doc["updated"] = utc_now();
  std::map<std::string, int> counts;
  for (const auto& r : results.records) ++counts[r.value("status", "")];
  doc["counts"] = counts;
  doc["records"] = results.records.size();
  doc["planned"] = run.points().size();

  // Provenance comes from the shards (the compute nodes), not from wherever collect runs.
  std::set<std::string> devices, nodes;
  nlohmann::ordered_json shard_list = nlohmann::ordered_json::array();
  for (const auto& t : results.shards) {
    const auto element = run.latest_element(t.shard);
    if (!t.environment.is_null()) {
      if (!doc.contains("environment") || doc["environment"].is_null())
        doc["environment"] = t.environment;
      if (!doc.contains("fingerprint") || doc["fingerprint"].is_null())
        doc["fingerprint"] = t.fingerprint;
      if (const auto d = device_of(t.environment); !d.empty()) devices.insert(d);
      const std::string node = t.environment.value("slurm_node", t.environment.value("host", ""));
      if (!node.empty()) nodes.insert(node);
    }
    shard_list.push_back({{"shard", t.shard},
                          {"job", element ? element->tag() : "-"},
                          {"state", t.state},
                          {"planned", t.planned},
                          {"ok", t.ok},
                          {"failed", t.failed},
                          {"skipped", t.skipped},
                          {"invalid", t.invalid},
                          {"missing", t.missing}});
  }
  doc["slurm"]["collected"] = utc_now();
  doc["slurm"]["shards"] = shard_list;
  doc["slurm"]["nodes"] = nodes;
  doc["devices"] = devices;
  nlohmann::ordered_json missing = nlohmann::ordered_json::array();
  for (const PlannedPoint* p : results.missing)
    missing.push_back({{"point_id", p->point_id}, {"key", p->key}, {"shard", p->shard}});
  doc["missing"] = missing;
  run.save();

  print_summary(results.records, run.points().size(), stdout);
  if (devices.size() > 1)
    fmt::print(
        "\nwarning: shards ran on different devices ({}): compare their figures with care; "
        "pin the hardware with --constraint\n",
        fmt::join(devices, ", "));

  std::map<int, std::vector<const PlannedPoint*>> missing_by_shard;
  for (const PlannedPoint* p : results.missing) missing_by_shard[p->shard].push_back(p);
  for (const auto& [shard, points] : missing_by_shard) {
    const ShardTally& tally = results.shards.at(static_cast<std::size_t>(shard));
    const auto element = run.latest_element(shard);
    fmt::print("\nshard {} (job {}): {} of {} points missing: {}\n", shard,
               element ? element->tag() : "-", points.size(), tally.planned,
               missing_reason(run, tally, element));
    for (std::size_t i = 0; i < points.size() && i < kListedPerShard; ++i)
      fmt::print("  {}  {}\n", points[i]->point_id, points[i]->key);
    if (points.size() > kListedPerShard)
      fmt::print("  ... and {} more (manifest.json lists them all under \"missing\")\n",
                 points.size() - kListedPerShard);
  }
  std::set<int> failed_shards;
  for (const PlannedPoint* p : results.failed) failed_shards.insert(p->shard);

  fmt::print("\ncollected {} of {} points from {} shards into {}: {}\n", results.records.size(),
             run.points().size(), run.num_shards(), (dir / "records.csv").string(),
             complete ? (results.failed.empty() ? "complete" : "complete, with failed points")
                      : "partial");
  if (!complete || !results.failed.empty())
    fmt::print("{}{}resubmit what is missing or failed with: runner submit --resume {}\n",
               complete ? "" : fmt::format("{} points missing. ", results.missing.size()),
               results.failed.empty()
                   ? ""
                   : fmt::format("{} points failed (shards {}). ", results.failed.size(),
                                 fmt::join(failed_shards, ",")),
               dir.string());
  if (!complete) return kCollectPointsMissing;
  return results.failed.empty() ? kCollectComplete : kCollectPointsFailed;
}

}  // namespace runner::slurm
