#pragma once
#include <filesystem>

namespace runner::slurm {

// `runner status DIR`: one line per shard — its state (pending, running, done, failed-points,
// interrupted, killed, missing), the Slurm element and what Slurm says of it, and its points
// ok / failed / skipped+invalid / missing — from the shard files, the .exit files of the batch
// scripts and Slurm (scontrol while the controller remembers the jobs, sacct where accounting
// runs). Returns 0; the state is in the text.
int status_run(const std::filesystem::path& dir);

}  // namespace runner::slurm
