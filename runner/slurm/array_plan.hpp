#pragma once
#include <string>
#include <vector>

#include "runner/slurm/slurm_run.hpp"

namespace runner::slurm {

// Longest --array list of single indices and ranges we hand to sbatch; beyond it the shards go
// through a map file instead (a resume of thousands of scattered shards would make a huge line).
constexpr std::size_t kMaxArrayListChars = 1000;

// How large the cluster lets a job array be (`scontrol show config`). Two separate limits:
// MaxArraySize bounds the indices (they stay below it), max_array_tasks in SchedulerParameters the
// number of elements of one array (sbatch refuses more with "Invalid job array specification").
struct ArrayLimits {
  int max_array_size = 1001;  // Slurm's default
  int max_array_tasks = 0;    // 0: not set, so MaxArraySize is the only limit
  // The most elements one array may have.
  int elements_per_array() const;
};

// Splits the shards to run into job arrays the cluster accepts:
//   * shards below MaxArraySize run as themselves: index = shard ("0-15%4", "3,7,9-11"), in as
//     many arrays as max_array_tasks asks for ("0-7", "8-15");
//   * shards at or above it go into further arrays of at most elements_per_array() elements,
//     indices 0..K-1, each with a map file (line k = the shard that index k runs).
// `file_suffix` tells submissions apart ("" for the first, ".resume1" ...); the first array's files
// are slurm/shard<suffix>.sbatch, the next ones slurm/shard<suffix>.part<N>.sbatch (with
// slurm/shard_map<suffix>.part<N>.txt for a mapped one). A throttle (%P) is added to every array.
std::vector<ArrayJob> plan_arrays(std::vector<int> shards, const ArrayLimits& limits, int throttle,
                                  const std::string& file_suffix);

}  // namespace runner::slurm
