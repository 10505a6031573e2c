#pragma once
// Shared pieces of the hostile suite: configs that can be interrupted, the plan of a config, and
// the checks every case makes: the exit code, the message, and that no earlier record was lost.
#include <signal.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli/child_process.hpp"
#include "tests/cli/results_dir.hpp"
#include "tests/unit/temp_dir.hpp"

namespace runner::hostile {

using cli_testing::ChildProcess;
using cli_testing::ProcessResult;
using cli_testing::SpawnOptions;
using runner::testing::TempDir;

// 20 CPU points of 10-200 ms each: long enough to be interrupted in the middle.
extern const char* const kInterruptible;
inline constexpr std::size_t kInterruptiblePoints = 20;
// 8 CPU points of a few milliseconds.
extern const char* const kQuick;
inline constexpr std::size_t kQuickPoints = 8;
// The test-only fault kernel (RUNNER_FAULT_INJECTION=1): an ok point, then one that never returns
// (it ignores stop requests: only a kill ends it), then an ok point.
extern const char* const kHangsInTheMiddle;
SpawnOptions with_faults(SpawnOptions options = {});

// `runner ARGS... --no-calibrate` (no ceilings measured: the suite is about files, not figures);
// the binary with the fault kernel for options made by with_faults().
ProcessResult run(const std::vector<std::string>& args, double timeout_s = 120,
                  const SpawnOptions& options = {});
std::vector<std::string> run_argv(const std::vector<std::string>& args,
                                  const SpawnOptions& options = {});

// The point ids of a config, from `runner CONFIG --dry-run`.
std::set<std::string> plan_of(const std::filesystem::path& config,
                              const SpawnOptions& options = {});

// The records of a JSONL file, read strictly: every line a complete JSON object (a test failure
// otherwise), at most one record per point.
std::vector<nlohmann::json> records_in(const std::filesystem::path& jsonl);
std::set<std::string> ids_of(const std::vector<nlohmann::json>& records);

// No earlier record lost: every point recorded in `before` has a record in `after`, and an ok
// record is there unchanged (a resume may replace a failed or skipped one with a new attempt).
void expect_kept(const std::vector<nlohmann::json>& before,
                 const std::vector<nlohmann::json>& after);

// A finished folder: records.jsonl holds exactly the plan, every record ok, the CSV the same
// rows, the manifest "complete".
void expect_complete(const std::filesystem::path& out, const std::set<std::string>& plan);

// Waits until `jsonl` holds at least n complete lines (false if the child ended or time ran out).
bool wait_for_records(const std::filesystem::path& jsonl, std::size_t n, ChildProcess& child,
                      double timeout_s = 60);

// Processes (not zombies) whose parent is `parent`.
std::vector<pid_t> children_of(pid_t parent);

// Makes this test process the reaper of orphans, so that a process the runner left behind is
// seen (it would otherwise go to init): construct before starting the runner.
class OrphanWatch {
 public:
  OrphanWatch();
  ~OrphanWatch();
  // Fails the test if any process started by the runner outlives it by more than timeout_s.
  void expect_none_left(double timeout_s = 5.0);
};

// A folder with a finished run of kQuick, made once per test suite (SetUpTestSuite).
struct FinishedRun {
  FinishedRun();
  TempDir dir;
  std::filesystem::path config, out;
};

// "sh -c 'ulimit ...; exec runner ARGS...'" as an argv.
std::vector<std::string> under_shell_limit(const std::string& ulimit_args,
                                           const std::vector<std::string>& runner_args);

// `runner ARGS...` (run_argv) as the unprivileged user nobody, after the shell words `prefix`
// ("ulimit -u 5 &&", or ""): per-user limits and permissions bind it, root is exempt from them.
// Empty when this test process cannot (not root, no setpriv or no user nobody).
std::vector<std::string> as_nobody(const std::string& prefix, const std::vector<std::string>& args);

// The user nobody is shared by every test that runs as it, and a per-user limit (ulimit -u) counts
// all of its processes: a test that runs as nobody holds this lock (an flock(2) on a file in /tmp,
// which tests/slurm/test_edges.sh takes with flock(1) too), so that none counts another's.
class UserNobodyLock {
 public:
  UserNobodyLock();
  ~UserNobodyLock();
  UserNobodyLock(const UserNobodyLock&) = delete;
  UserNobodyLock& operator=(const UserNobodyLock&) = delete;

 private:
  int fd_ = -1;
};

// Counts the occurrences of `needle` in `text`.
std::size_t count_of(const std::string& text, const std::string& needle);

}  // namespace runner::hostile
