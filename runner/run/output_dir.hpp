#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include "runner/base/errors.hpp"

namespace runner {

// An exclusive flock(2) on a lock file, held for the object's lifetime: the one owner of a
// results folder (a run, a resume, a shard of a submitted run, submit, collect). Taking it never
// waits: a folder another runner holds is refused at once (Refused, exit 3), with who holds it
// (the holder writes its pid, host, start time and command into the file). The lock goes with
// the process, kill -9 included, so a stale lock file never blocks anyone.
class FolderLock {
 public:
  FolderLock() = default;
  // Locks `lock_file` (created if missing; its folder must exist). `what` names the owner's job
  // in the file and in messages ("run", "shard 3/8", "collect").
  FolderLock(const std::filesystem::path& lock_file, std::string_view what);
  ~FolderLock();
  FolderLock(FolderLock&& other) noexcept;
  FolderLock& operator=(FolderLock&& other) noexcept;
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// The lock file of a results folder, and of one shard's files in it.
inline constexpr std::string_view kLockFileName = ".runner.lock";
std::filesystem::path shard_lock_file(const std::filesystem::path& dir, int shard);

// A new, empty folder `parent/<UTC time to the millisecond>-<host>` for a run, made with an
// exclusive mkdir: two runs started in the same millisecond still get two folders ("-2", "-3"
// ... are added until one is free).
std::filesystem::path make_unique_run_dir(const std::filesystem::path& parent,
                                          std::string_view host);

// Claims `dir` for a run of `files` (the stem of its record files: "records", or "shards/3"):
// creates it if missing, locks it, and refuses (UsageError, exit 2) a folder that already holds
// that run's files, or anything at all for a run of the whole matrix, unless `resume`. Refuses
// (Refused, exit 3) a folder another runner holds, or one that cannot be created or written.
// Checked before any work starts, so a bad --out costs nothing.
struct ClaimedOutput {
  std::filesystem::path dir;
  FolderLock lock;
  bool had_results = false;  // the run's files were there already (a resume)
};
ClaimedOutput claim_output_dir(const std::filesystem::path& dir, const std::string& stem,
                               bool resume, std::string_view owner);

// The shell-quoted form of a word, for commands printed to be pasted back ("Resume with: ...").
std::string shell_quote(std::string_view word);

}  // namespace runner
