#pragma once
#include <string>
#include <vector>

#include "runner/slurm/slurm_run.hpp"

namespace runner::slurm {

// Longest --array list of single indices and ranges we hand to sbatch; beyond it the shards go
// through a map file instead (a resume of thousands of scattered shards would make a huge line).
constexpr std::size_t kMaxArrayListChars = 1000;

// Splits the shards to run into job arrays the cluster accepts. Array indices must stay below
// MaxArraySize, so:
//   * shards below it run as themselves: one array, index = shard ("0-15%4", "3,7,9-11");
//   * shards at or above it go into further arrays of at most MaxArraySize elements, indices
//     0..K-1, each with a map file (line k = the shard that index k runs).
// `file_suffix` tells submissions apart ("" for the first, ".resume1" ...); the first array's files
// are slurm/shard<suffix>.sbatch, the next ones slurm/shard<suffix>.part<N>.sbatch with
// slurm/shard_map<suffix>.part<N>.txt. A throttle (%P) is added to every array.
std::vector<ArrayJob> plan_arrays(std::vector<int> shards, int max_array_size, int throttle,
                                  const std::string& file_suffix);

}  // namespace runner::slurm
