#pragma once
#include <filesystem>

namespace runner::slurm {

// Serialises the commands that rewrite a run's manifest.json (`collect` in a batch job, `submit
// --resume` on the login node): each holds an exclusive flock on OUT/slurm/.lock from reading the
// manifest to writing it back, so neither loses the other's update.
class RunLock {
 public:
  explicit RunLock(const std::filesystem::path& run_dir);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace runner::slurm
