// What a batch system's allocation limits: the CPUs of an affinity mask (taskset, Slurm's
// cgroups) size the default thread counts; a per-user process limit (ulimit -u) is found and
// named instead of spinning OpenBLAS into every point's time limit.
#include <pwd.h>
#include <sched.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/hostile/hostile.hpp"

namespace runner::hostile {
namespace {

using namespace cli_testing;

int cpus_of_this_process() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

std::vector<std::string> under_taskset(const std::string& cpus, std::vector<std::string> argv) {
  argv.insert(argv.begin(), {"/usr/bin/taskset", "-c", cpus});
  return argv;
}

TEST(AffinityMask, SetsTheDefaultThreadCountSoNoDefaultPointIsOversubscribed) {
  if (cpus_of_this_process() < 2) GTEST_SKIP() << "needs 2 CPUs to mask one away";
  TempDir dir;
  write_text(dir / "config.yaml", R"(experiment: masked
kernel: gemm
repeat: {warmup: 0, min_samples: 1, max_samples: 1}
sweeps:
  - {variant: [omp_naive, omp_blocked], size: [16, 32]}
)");
  const auto out = dir / "out";
  const ProcessResult dry =
      run_process(under_taskset("0", run_argv({(dir / "config.yaml").string(), "--dry-run"})));
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_EQ(count_of(dry.out, "threads=1\n"), 4u) << dry.out;
  const ProcessResult r = run_process(
      under_taskset("0", run_argv({(dir / "config.yaml").string(), "--out", out.string(), "-q"})),
      60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const auto& rec : records_in(out / "records.jsonl")) {
    EXPECT_EQ(rec["threads"], 1) << rec.dump();
    EXPECT_NE(rec["oversubscribed"], true) << rec.dump();
  }
  // An absurd OMP_NUM_THREADS is replaced by the mask's CPUs too.
  const ProcessResult replaced = run_process(
      under_taskset(
          "0", run_argv({(dir / "config.yaml").string(), "--out", (dir / "out2").string(), "-q"})),
      60, {.env = {{"OMP_NUM_THREADS", "100000"}}});
  EXPECT_EQ(replaced.exit_code, 0) << replaced.err;
  EXPECT_NE(replaced.err.find("using 1 (the cores of this process)"), std::string::npos)
      << replaced.err;
}

// The per-user process limit binds only unprivileged users (root is exempt): the runner runs as
// `nobody`, under `ulimit -u N` counted from the processes and threads nobody has already.
class PerUserProcessLimit : public ::testing::Test {
 protected:
  void SetUp() override {
    const passwd* nobody = ::getpwnam("nobody");
    if (as_nobody("", {"--version"}).empty() || !nobody)
      GTEST_SKIP() << "needs root, setpriv and the user nobody";
    nobody_uid_ = nobody->pw_uid;
    std::filesystem::permissions(dir.path(), std::filesystem::perms::all);
    const ProcessResult probe = run_process(as_nobody("", {"--version"}));
    if (probe.exit_code != 0)
      GTEST_SKIP() << "nobody cannot run the runner here (a build folder it cannot read?): "
                   << probe.err;
  }
  // `runner ARGS...` as nobody under `ulimit -u` of `extra` tasks beyond those nobody has now.
  ProcessResult as_nobody_limited(int extra, const std::vector<std::string>& args,
                                  double timeout_s = 60) {
    long base = 0;
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
      const std::string name = e.path().filename();
      if (name.empty() || !std::isdigit(name[0])) continue;
      std::string status;
      try {
        status = read_text(e.path() / "status");
      } catch (const std::exception&) {
        continue;
      }
      const auto uid = status.find("\nUid:\t"), threads = status.find("\nThreads:\t");
      if (uid == std::string::npos || threads == std::string::npos) continue;
      if (std::stol(status.substr(uid + 6)) == static_cast<long>(nobody_uid_))
        base += std::stol(status.substr(threads + 10));
    }
    return run_process(as_nobody("ulimit -u " + std::to_string(base + extra) + " &&", args),
                       timeout_s, {.cwd = dir.path()});
  }

  UserNobodyLock nobody_lock_;  // before counting nobody's tasks, until the test ends
  TempDir dir;
  uid_t nobody_uid_ = 0;
};

TEST_F(PerUserProcessLimit, TheBinaryStartsWithTheOpenBlasThreadsThatFit) {
  // OpenBLAS starts its pool while the binary loads: it raised SIGINT (exit 130) under -u 1.
  for (const int tasks : {1, 2}) {
    const ProcessResult r = as_nobody_limited(tasks, {"--version"});
    EXPECT_EQ(r.exit_code, 0) << "ulimit -u +" << tasks << ": " << r.err;
    EXPECT_NE(r.out.find("runner "), std::string::npos) << r.out;
  }
}

TEST_F(PerUserProcessLimit, NoRoomForAWorkerIsNamed) {
  // Room for the runner alone (fork fails), or for its worker but not the worker's watchdog
  // thread: "Resource temporarily unavailable" named nothing.
  write_text(dir / "config.yaml", kQuick);
  for (const int tasks : {1, 2}) {
    const ProcessResult r = as_nobody_limited(
        tasks, {(dir / "config.yaml").string(), "--out", (dir / "out").string(), "-q", "--resume"});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find(tasks == 1 ? "error: cannot start a worker process: Resource temporarily "
                                      "unavailable; the per-user process limit (ulimit -u"
                                    : "error: the worker process died while starting; the "
                                      "per-user process limit (ulimit -u"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("of this user run) is reached"), std::string::npos) << r.err;
    EXPECT_LT(r.seconds, 30)
        << "a worker that cannot start is named at once, not at the 60 s limit";
  }
}

TEST_F(PerUserProcessLimit, PointsRunOrAreSkippedNamingItNeverTimedOut) {
  // The issue's case: room for the runner, its worker and the worker's watchdog. OpenBLAS could
  // not start its threads and spun: every point, omp_serial too, ran to its time limit.
  write_text(dir / "config.yaml", R"(experiment: nproc
kernel: gemm
timeout_s: 8
repeat: {warmup: 0, min_samples: 1, max_samples: 1}
sweeps:
  - {variant: omp_serial, size: [16, 32]}
  - {variant: [omp_naive, openblas], threads: [1, 2], size: 16}
)");
  const auto out = dir / "out";
  const ProcessResult r =
      as_nobody_limited(3, {(dir / "config.yaml").string(), "--out", out.string(), "-q"}, 120);
  ASSERT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(r.seconds, 8) << "a point ran to its time limit";
  const auto records = records_in(out / "records.jsonl");
  EXPECT_EQ(records.size(), 6u);
  for (const auto& rec : records) {
    if (rec["threads"] == 2) {
      EXPECT_EQ(rec["status"], "skipped") << rec.dump();
      EXPECT_TRUE(rec["message"].get<std::string>().starts_with(
          "thread limit: a point of 2 threads needs 1 more thread, but the per-user process "
          "limit (ulimit -u"))
          << rec.dump();
    } else {
      EXPECT_EQ(rec["status"], "ok") << rec.dump();
    }
  }
}

}  // namespace
}  // namespace runner::hostile
