#pragma once
#include <optional>
#include <string>

#include "runner/slurm/shard_exit.hpp"
#include "runner/slurm/shard_results.hpp"
#include "runner/slurm/slurm_client.hpp"
#include "runner/slurm/slurm_run.hpp"

namespace runner::slurm {

// What became of a shard, told from three witnesses that can disagree: what Slurm says of its
// latest element, the element's .exit file (jobs/shard.sbatch) and the shard's records. Slurm's
// own verdicts (NODE_FAIL, PREEMPTED, OUT_OF_MEMORY ...) win over the .exit file, which the batch
// script may still write while the step is taken from under it (after a node failure srun returns
// 0 for a runner it never saw end: measured with Slurm 22.05); and a requeued element keeps its
// job id and index, so lines of an earlier attempt than the one Slurm reports are not about it.
struct ShardStatus {
  std::string state;  // pending, running, done, failed-points, cancelled, interrupted, failed,
                      // killed, missing
  std::string note;   // why, and what to do
};

// When `runner cancel` cancelled the shard's latest element while it was queued or running
// (the manifest's submission says so); nullopt otherwise. A fourth witness: Slurm forgets an
// element cancelled while pending, and shows one cancelled while running like any scancel.
std::optional<std::string> cancelled_at(const SlurmRun& run,
                                        const std::optional<ShardElement>& element, int shard);

// `runner status`: `job` is what Slurm says of the element (nullopt when it no longer knows it),
// `exit` the latest attempt in its .exit file, `cancelled` when `runner cancel` cancelled it.
// A shard that `runner cancel` stopped short of its points is "cancelled", not killed or missing.
ShardStatus classify_shard(const ShardTally& tally, const std::optional<ShardElement>& element,
                           const std::optional<JobState>& job, std::optional<ShardExit> exit,
                           const std::optional<std::string>& cancelled = std::nullopt);

// `runner collect`, which reads only files: why the shard's points are missing, from its .exit
// file, records and the manifest's cancellation alone.
std::string missing_reason(const ShardTally& tally, const std::optional<ShardElement>& element,
                           const std::optional<ShardExit>& exit,
                           const std::optional<std::string>& cancelled = std::nullopt);

}  // namespace runner::slurm
