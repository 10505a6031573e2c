#include "runner/slurm/collect.hpp"

#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "runner/api/registry.hpp"
#include "runner/base/errors.hpp"
#include "runner/measure/environment.hpp"
#include "runner/plugin/plugins.hpp"
#include "runner/results/columns.hpp"
#include "runner/results/record_files.hpp"
#include "runner/results/relative_metrics.hpp"
#include "runner/results/summary.hpp"
#include "runner/run/output_dir.hpp"
#include "runner/slurm/array_indices.hpp"
#include "runner/slurm/run_lock.hpp"
#include "runner/slurm/shard_exit.hpp"
#include "runner/slurm/shard_results.hpp"
#include "runner/slurm/shard_state.hpp"
#include "runner/slurm/slurm_run.hpp"
#include "runner/spec/config.hpp"

namespace runner::slurm {

namespace {

constexpr std::size_t kListedPerShard = 10;

// What made each shard's records, compared before anything is merged. Shards without records
// mix nothing and are left out.
IdentityCheck check_shards(const SlurmRun& run, const ShardResults& results, bool force_mix) {
  std::map<int, ShardIdentity> identities;
  for (const auto& t : results.shards)
    if (t.identity && t.recorded() > 0) identities[t.shard] = *t.identity;
  IdentityCheck check = check_identities(identities, run.document().value("config_text", ""));
  if (!check.mixed()) return check;
  const std::string dir = shell_quote(run.dir().string());
  if (!force_mix)
    throw Refused(fmt::format(
        "refusing to merge the shards of {}: they ran different configs or builds ({}), so "
        "their records are not one result set. Move the files of the odd shards "
        "(shards/<i>.jsonl, .csv, .manifest.json) aside and run them again with `runner submit "
        "--resume {}`, or merge anyway with `runner collect --force-mix {}` (the manifest then "
        "lists every config and build under \"identities\")",
        run.dir().string(), check.describe(), dir, dir));
  return check;
}

}  // namespace

int collect_run(const std::filesystem::path& dir, bool force_mix) {
  RunLock lock(dir);
  SlurmRun run = SlurmRun::load(dir);
  ShardResults results = ShardResults::read(run);
  for (const auto& w : results.warnings) spdlog::warn("{}", w);
  // Before anything is written: a refusal leaves the directory as it was.
  const IdentityCheck identities = check_shards(run, results, force_mix);

  // Speedup and friends compare a point with its problem's baseline, which may have run in
  // another shard: recompute them over the whole set.
  // A plugin family's ceiling variant is known once its plugin is loaded: the copies the run
  // was submitted with.
  if (std::filesystem::exists(plugin::submitted_plugins_file(dir)))
    plugin::load_plugins(load_config(run.config_copy()), Registry::instance(),
                         {.quiet = true, .submitted_run = dir});
  apply_relative_metrics(results.records, Registry::instance());
  for (auto& r : results.records) r = canonical_record(r, UnknownFields::keep);
  std::string jsonl;
  for (const auto& r : results.records) jsonl += r.dump() + "\n";
  write_file_atomically(dir / "records.jsonl", jsonl);
  write_file_atomically(dir / "records.csv", to_csv(results.records));

  auto& doc = run.document();
  const bool complete = results.missing.empty();
  doc["state"] = complete ? "complete" : "partial";
  doc["updated"] = utc_now();
  std::map<std::string, int> counts;
  for (const auto& r : results.records) ++counts[text_of(r, "status")];
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
    if (t.identity) shard_list.back()["identity"] = t.identity->to_json();
  }
  for (const auto& [device, shards] : identities.devices) devices.insert(device);
  doc["slurm"]["collected"] = utc_now();
  doc["slurm"]["shards"] = shard_list;
  doc["slurm"]["nodes"] = nodes;
  doc["devices"] = devices;
  // Every config, build and device the merged records come from, with their shards: one entry
  // when the shards agree, several after `collect --force-mix`.
  doc["identities"] = identities.to_json();
  doc["mixed"] = identities.mixed();
  nlohmann::ordered_json missing = nlohmann::ordered_json::array();
  for (const PlannedPoint* p : results.missing)
    missing.push_back({{"point_id", p->point_id}, {"key", p->key}, {"shard", p->shard}});
  doc["missing"] = missing;
  run.save();

  print_summary(results.records, run.points().size(), stdout);
  if (identities.mixed())
    fmt::print(
        "\nwarning: --force-mix: merged shards of different configs or builds: {}. Their "
        "records are not one result set; compare their figures with care (the manifest lists "
        "them under \"identities\")\n",
        identities.describe());
  if (identities.devices.size() > 1) {
    std::vector<std::string> which;
    for (const auto& [device, shards] : identities.devices)
      which.push_back(fmt::format("{} (shards {})", device, format_index_list(shards)));
    fmt::print(
        "\nwarning: shards ran on different devices: {}. Compare their figures with care; pin "
        "the hardware with --constraint (the manifest lists them under \"identities\")\n",
        fmt::join(which, ", "));
  }

  std::map<int, std::vector<const PlannedPoint*>> missing_by_shard;
  for (const PlannedPoint* p : results.missing) missing_by_shard[p->shard].push_back(p);
  for (const auto& [shard, points] : missing_by_shard) {
    const ShardTally& tally = results.shards.at(static_cast<std::size_t>(shard));
    const auto element = run.latest_element(shard);
    fmt::print("\nshard {} (job {}): {} of {} points missing: {}\n", shard,
               element ? element->tag() : "-", points.size(), tally.planned,
               missing_reason(tally, element,
                              element ? read_shard_exit(run.dir(), element->tag()) : std::nullopt,
                              cancelled_at(run, element, shard)));
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
               shell_quote(dir.string()));
  if (!complete) return kCollectPointsMissing;
  return results.failed.empty() ? kCollectComplete : kCollectPointsFailed;
}

}  // namespace runner::slurm
