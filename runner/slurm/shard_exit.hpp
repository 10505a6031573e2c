#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace runner::slurm {

// The latest attempt of an array element, from OUT/logs/<array job>_<index>.exit. Slurm requeues
// an element (node failure, preemption, `scontrol requeue`) under the same job id and index, so
// jobs/shard.sbatch appends to that file, once when an attempt starts ("start job=… node=…
// start=… restarts=0") and once when it ends by itself ("exit=143 job=… task=4 shard=4 … end=…
// drained=1 restarts=0"); restarts is SLURM_RESTART_COUNT, 0 for the first attempt. Files of
// earlier releases hold one exit line and no start line.
struct ShardExit {
  int restarts = 0;      // the attempt: 0 the first, 1 after one requeue ...
  bool ended = false;    // the batch script wrote the attempt's exit line
  int exit_code = -1;    // what srun returned (the runner's status, unless srun lost the node)
  bool drained = false;  // the batch script forwarded a SIGTERM to the runner
  std::string node, start, end;
};

// The latest attempt recorded in OUT/logs/<tag>.exit (tag "123_4"); nullopt when there is no file
// or no readable line. An attempt with a start line and no exit line after it did not end by
// itself: killed outright (hard time limit, node failure, out of memory), or still running.
std::optional<ShardExit> read_shard_exit(const std::filesystem::path& run_dir,
                                         const std::string& tag);

}  // namespace runner::slurm
