#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace runner::slurm {

// The line jobs/shard.sbatch writes to OUT/logs/<array job>_<index>.exit when its runner ended by
// itself: "exit=143 job=… array_job=… task=4 shard=4 num_shards=16 node=n17 start=… end=…
// drained=1". A shard killed outright (hard time limit, scancel, node failure, out of memory)
// writes none.
struct ShardExit {
  int exit_code = -1;
  bool drained = false;  // the batch script forwarded a time-limit SIGTERM
  std::string node, start, end;
};

// Reads OUT/logs/<tag>.exit (tag "123_4"); nullopt when there is none or it is unreadable.
std::optional<ShardExit> read_shard_exit(const std::filesystem::path& run_dir,
                                         const std::string& tag);

}  // namespace runner::slurm
