#include "runner/slurm/shard_results.hpp"

#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "runner/results/record_files.hpp"

namespace runner::slurm {

namespace {

// When a point has several records (a shard re-run by hand, a file copied in), an ok record wins
// over any other, and otherwise the later one.
bool better(const Record& candidate, const Record& current) {
  const bool candidate_ok = text_of(candidate, "status") == "ok";
  const bool current_ok = text_of(current, "status") == "ok";
  return candidate_ok || !current_ok;
}

}  // namespace

ShardResults ShardResults::read(const SlurmRun& run) {
  ShardResults result;
  const int n = run.num_shards();
  result.shards.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) result.shards[static_cast<std::size_t>(i)].shard = i;

  std::map<std::string, std::size_t> plan_index;  // point_id → position in the plan
  for (std::size_t i = 0; i < run.points().size(); ++i) {
    plan_index[run.points()[i].point_id] = i;
    const int s = run.points()[i].shard;
    if (s >= 0 && s < n) ++result.shards[static_cast<std::size_t>(s)].planned;
  }

  std::vector<std::optional<Record>> best(run.points().size());
  std::set<std::string> outside_plan;
  for (int s = 0; s < n; ++s) {
    ShardTally& tally = result.shards[static_cast<std::size_t>(s)];
    const auto base = run.dir() / "shards" / std::to_string(s);
    try {
      for (auto& r : read_jsonl(base.string() + ".jsonl", &result.warnings)) {
        const std::string id = text_of(r, "point_id");
        const auto it = plan_index.find(id);
        if (it == plan_index.end()) {
          outside_plan.insert(id);
          continue;
        }
        if (run.points()[it->second].shard != s)
          result.warnings.push_back(fmt::format("shards/{}.jsonl holds point {} of shard {}", s, id,
                                                run.points()[it->second].shard));
        auto& slot = best[it->second];
        if (!slot || better(r, *slot)) slot = std::move(r);
      }
    } catch (const std::exception& e) {
      // One damaged shard file must not hide the others: its points count as missing.
      result.warnings.push_back(e.what());
    }
    std::ifstream manifest(base.string() + ".manifest.json");
    if (manifest) {
      try {
        const auto doc = nlohmann::json::parse(manifest);
        tally.state = doc.value("state", "");
        tally.environment = doc.value("environment", nlohmann::json());
        tally.fingerprint = doc.value("fingerprint", "");
        tally.identity = shard_identity(doc);
      } catch (const nlohmann::json::exception& e) {
        result.warnings.push_back(fmt::format("shards/{}.manifest.json: {}", s, e.what()));
      }
    }
  }
  if (!outside_plan.empty())
    result.warnings.push_back(
        fmt::format("{} records of points that are not in the plan were ignored (first: {})",
                    outside_plan.size(), *outside_plan.begin()));

  for (std::size_t i = 0; i < best.size(); ++i) {
    const PlannedPoint& p = run.points()[i];
    ShardTally* tally =
        p.shard >= 0 && p.shard < n ? &result.shards[static_cast<std::size_t>(p.shard)] : nullptr;
    if (!best[i]) {
      result.missing.push_back(&p);
      if (tally) ++tally->missing;
      continue;
    }
    const std::string status = text_of(*best[i], "status");
    if (tally) {
      if (status == "ok")
        ++tally->ok;
      else if (status == "skipped")
        ++tally->skipped;
      else if (status == "invalid")
        ++tally->invalid;
      else
        ++tally->failed;
    }
    if (status != "ok" && status != "skipped" && status != "invalid") result.failed.push_back(&p);
    result.records.push_back(std::move(*best[i]));
  }
  return result;
}

}  // namespace runner::slurm
