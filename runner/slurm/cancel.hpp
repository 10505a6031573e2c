#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "runner/slurm/slurm_run.hpp"

namespace runner::slurm {

// A job `runner cancel` may have to cancel: a shard array or the collect job of one submission.
struct CancelTarget {
  std::size_t submission = 0;  // 0-based
  std::string job_id;
  bool collect = false;
  std::vector<int> shards;  // the shards an array runs; empty for a collect job
};

// Every job id the run's submissions recorded (the first `runner submit`, each `submit
// --resume`, every array of each), collect jobs first: cancelling an array first would satisfy
// the collect job's afterany dependency, and the collect job could start before it is cancelled.
std::vector<CancelTarget> cancel_targets(const SlurmRun& run);

// `runner cancel DIR`: scancels every array and collect job of the run that is still pending or
// running, prints what it cancelled, records the time in the manifest (each cancelled
// submission's `cancelled`, and `state` "cancelled"), and returns 0; also when every job had
// ended already (it says so). Running shards get SIGTERM and drain, keeping their records.
// Throws UsageError (exit 2) for a DIR that no `runner submit` submitted.
int cancel_run(const std::filesystem::path& dir);

}  // namespace runner::slurm
