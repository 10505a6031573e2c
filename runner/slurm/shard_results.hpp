#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/results/record.hpp"
#include "runner/slurm/shard_identity.hpp"
#include "runner/slurm/slurm_run.hpp"

namespace runner::slurm {

// What the shard files of a run hold for one shard.
struct ShardTally {
  int shard = 0;
  int planned = 0;                                   // points the plan gives this shard
  int ok = 0, failed = 0, skipped = 0, invalid = 0;  // recorded points by status
  int missing = 0;                                   // planned points without a record
  std::string state;  // the shard manifest's state: running, complete, interrupted; "" if none
  nlohmann::json environment;  // the shard manifest's environment (host, cpu, gpu, Slurm ids)
  std::string fingerprint;
  std::optional<ShardIdentity> identity;  // config, build and device that made its records

  int recorded() const { return ok + failed + skipped + invalid; }
  // Needs another run: a point without a record, or one that failed (skipped and invalid points
  // are outcomes: no device for them, a block the GPU cannot launch).
  bool needs_rerun() const { return missing > 0 || failed > 0; }
};

// The records of every shard of a run (OUT/shards/I.jsonl), matched with the plan: one record per
// planned point at most, in plan (execution) order. Reading never changes a file, so it is safe
// while shards are still writing (a half-written last line is ignored).
struct ShardResults {
  std::vector<Record> records;               // plan order; points without a record left out
  std::vector<const PlannedPoint*> missing;  // planned, no record
  std::vector<const PlannedPoint*> failed;   // recorded with status failed
  std::vector<ShardTally> shards;            // index = shard number
  std::vector<std::string> warnings;         // truncated lines, records outside the plan ...

  static ShardResults read(const SlurmRun& run);
};

}  // namespace runner::slurm
