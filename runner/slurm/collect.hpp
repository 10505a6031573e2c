#pragma once
#include <filesystem>

#include "runner/base/errors.hpp"
#include "runner/base/exit_codes.hpp"

namespace runner::slurm {

// Exit codes of `runner collect` (also the collect job's exit code, so Slurm shows the outcome):
constexpr int kCollectComplete = exit_code::kOk;  // every planned point has a record, none failed
constexpr int kCollectPointsFailed =
    exit_code::kPointFailed;  // every point has a record, some failed (as a local run)
constexpr int kCollectPointsMissing =
    exit_code::kIncomplete;  // points without a record: pending, killed, cancelled
// Shards of different configs or builds without --force-mix: exit_code::kRefused (3), through
// the Refused exception, and nothing is written.

// `runner collect DIR`: merges DIR/shards/*.jsonl into DIR/records.jsonl and records.csv (plan
// order, speedup / efficiency / pct_of_copy recomputed across shards), updates DIR/manifest.json
// (state complete or partial, counts, the missing points and their shard, the identity of every
// shard), prints the summary and what is missing, and returns one of the codes above. Reads only
// files, never Slurm, so it can run anywhere, at any time, as often as wanted: the same shard
// files give the same output. Refuses (Refused, exit 3, before writing anything) shards that ran
// another config or build than the others, unless `force_mix`: then they are merged with a
// warning. Shards on different devices are merged with a warning.
int collect_run(const std::filesystem::path& dir, bool force_mix = false);

}  // namespace runner::slurm
