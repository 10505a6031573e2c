#pragma once
#include <filesystem>

namespace runner::slurm {

// Exit codes of `runner collect` (also the collect job's exit code, so Slurm shows the outcome):
constexpr int kCollectComplete = 0;       // every planned point has a record, none failed
constexpr int kCollectPointsFailed = 1;   // every point has a record, some failed (as a local run)
constexpr int kCollectPointsMissing = 3;  // points without a record: pending, killed, cancelled

// `runner collect DIR`: merges DIR/shards/*.jsonl into DIR/records.jsonl and records.csv (plan
// order, speedup / efficiency / pct_of_copy recomputed across shards), updates DIR/manifest.json
// (state complete or partial, counts, the missing points and their shard), prints the summary and
// what is missing, and returns one of the codes above. Reads only files, never Slurm, so it can run
// anywhere, at any time, as often as wanted: the same shard files give the same output.
int collect_run(const std::filesystem::path& dir);

}  // namespace runner::slurm
