// Every way a run can be stopped by a signal ends the same way: valid files, the manifest saying
// "interrupted", exit 128 + the signal, the resume command, no process left behind; and the
// resume gives exactly the plan with every earlier record kept. A stopped (SIGSTOP) run does not
// time its points out.
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "tests/hostile/hostile.hpp"

namespace runner::hostile {
namespace {

using namespace cli_testing;

std::string name_of(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : std::to_string(sig);
}

// The runner's worker: the child process of `parent` (there is one while a point runs).
pid_t worker_of(pid_t parent, double timeout_s = 10) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    if (const auto pids = children_of(parent); !pids.empty()) return pids.front();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return -1;
}

// What every interrupted run must leave: the exit code, the message, valid files that say
// "interrupted", then a resume that completes the plan keeping every record.
void expect_interrupted_then_resumable(const ProcessResult& r, int sig,
                                       const std::filesystem::path& config,
                                       const std::filesystem::path& out,
                                       const std::set<std::string>& plan,
                                       const SpawnOptions& options = {}, int resume_exit_code = 0) {
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 128 + sig) << r.err;
  EXPECT_NE(r.err.find("Interrupted by " + name_of(sig)), std::string::npos) << r.err;
  EXPECT_NE(
      r.err.find("Resume with: runner " + config.string() + " --out " + out.string() + " --resume"),
      std::string::npos)
      << r.err;
  const auto before = records_in(out / "records.jsonl");
  EXPECT_LT(before.size(), plan.size()) << "the run finished before the signal";
  const nlohmann::json manifest = read_json(out / "manifest.json");
  EXPECT_EQ(manifest["state"], "interrupted");
  EXPECT_EQ(manifest["records"], before.size());
  EXPECT_EQ(parse_csv(read_text(out / "records.csv")).rows.size(), before.size());

  const ProcessResult resumed =
      run({config.string(), "--out", out.string(), "--resume", "-q"}, 120, options);
  EXPECT_EQ(resumed.exit_code, resume_exit_code) << resumed.err;
  const auto after = records_in(out / "records.jsonl");
  EXPECT_EQ(ids_of(after), plan);
  expect_kept(before, after);
  EXPECT_EQ(read_json(out / "manifest.json")["state"], "complete");
}

enum class Target { parent, worker, group };

class StopSignal : public ::testing::TestWithParam<std::tuple<int, Target>> {};

TEST_P(StopSignal, EndsInterruptedAndResumes) {
  const auto [sig, target] = GetParam();
  TempDir dir;
  const auto config = dir / "config.yaml";
  write_text(config, kInterruptible);
  const auto plan = plan_of(config);
  const auto out = dir / "out";
  OrphanWatch orphans;
  ProcessResult r;
  {
    ChildProcess child(run_argv({config.string(), "--out", out.string()}), dir.path(),
                       {.new_process_group = true});
    ASSERT_TRUE(wait_for_records(out / "records.jsonl", 1, child)) << "no record appeared";
    switch (target) {
      case Target::parent:
        child.signal(sig);
        break;
      case Target::group:
        child.signal_group(sig);
        break;
      case Target::worker: {
        // As `top` or `kill` would: to the worker alone.
        const pid_t worker = worker_of(child.pid());
        ASSERT_GT(worker, 0) << "no worker process found";
        ::kill(worker, sig);
        break;
      }
    }
    r = child.wait(30);
  }
  orphans.expect_none_left();
  expect_interrupted_then_resumable(r, sig, config, out, plan);
}

std::string stop_signal_case_name(const ::testing::TestParamInfo<std::tuple<int, Target>>& p) {
  const Target target = std::get<1>(p.param);
  return name_of(std::get<0>(p.param)) + "_to_" +
         (target == Target::parent   ? "parent"
          : target == Target::worker ? "worker"
                                     : "group");
}

INSTANTIATE_TEST_SUITE_P(Hostile, StopSignal,
                         ::testing::Combine(::testing::Values(SIGINT, SIGTERM, SIGHUP, SIGQUIT),
                                            ::testing::Values(Target::parent, Target::worker,
                                                              Target::group)),
                         stop_signal_case_name);

// What batch systems send before they end a job: Slurm's --signal=USR1@60 (USR2, ALRM), SIGXCPU
// near a CPU-time limit. Their default action ended the runner like kill -9 (manifest "running",
// no resume command); they drain like SIGTERM.
INSTANTIATE_TEST_SUITE_P(BatchJob, StopSignal,
                         ::testing::Combine(::testing::Values(SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU),
                                            ::testing::Values(Target::parent, Target::worker,
                                                              Target::group)),
                         stop_signal_case_name);

// A point that does not look at stop requests (a hang, a long kernel): the first signal gives it
// a grace period, a second one ends it at once.
class SignalDuringAHang : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(SignalDuringAHang, TheFirstGivesGraceTheSecondStopsAtOnce) {
  const auto [first, second] = GetParam();
  TempDir dir;
  const auto config = dir / "config.yaml";
  // The hang is killed 3 s after the first signal (the grace) or at 4 s (its limit): either way
  // well after a second signal that must end it at once.
  std::string yaml = kHangsInTheMiddle;
  yaml.replace(yaml.find("timeout_s: 60"), 13, "timeout_s: 4");
  write_text(config, yaml);
  const SpawnOptions faults = with_faults();
  const auto plan = plan_of(config, faults);
  const auto out = dir / "out";
  OrphanWatch orphans;
  ProcessResult r;
  double after_last_signal = 0;
  {
    SpawnOptions options = faults;
    options.new_process_group = true;
    ChildProcess child(run_argv({config.string(), "--out", out.string()}, options), dir.path(),
                       options);
    ASSERT_TRUE(wait_for_records(out / "records.jsonl", 1, child));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // host_hang is in flight
    child.signal(first);
    const auto sent = std::chrono::steady_clock::now();
    if (second != 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      child.signal(second);
    }
    const auto last = std::chrono::steady_clock::now();
    r = child.wait(30);
    after_last_signal =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - last).count();
    if (second == 0) {
      const double waited =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
      EXPECT_GT(waited, 2.5) << "the point in flight was not given its grace";
    }
  }
  if (second != 0) {
    EXPECT_LT(after_last_signal, 1.5) << "the second signal did not stop at once";
  }
  orphans.expect_none_left();
  // The resume runs host_hang again, which then times out: one failed point, exit 1.
  expect_interrupted_then_resumable(r, first, config, out, plan, faults, 1);
}

std::vector<std::tuple<int, int>> signal_pairs() {
  std::vector<std::tuple<int, int>> pairs;
  for (int first : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    pairs.emplace_back(first, 0);
    for (int second : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) pairs.emplace_back(first, second);
  }
  return pairs;
}

INSTANTIATE_TEST_SUITE_P(Hostile, SignalDuringAHang, ::testing::ValuesIn(signal_pairs()),
                         [](const auto& p) {
                           const int second = std::get<1>(p.param);
                           return name_of(std::get<0>(p.param)) +
                                  (second ? "_then_" + name_of(second) : "_alone");
                         });

TEST(Signals, AThirdSignalExitsOnTheSpotAndTheFilesStayValid) {
  TempDir dir;
  const auto config = dir / "config.yaml";
  write_text(config, kHangsInTheMiddle);
  const SpawnOptions faults = with_faults();
  const auto plan = plan_of(config, faults);
  const auto out = dir / "out";
  OrphanWatch orphans;
  ProcessResult r;
  {
    ChildProcess child(run_argv({config.string(), "--out", out.string()}, faults), dir.path(),
                       faults);
    ASSERT_TRUE(wait_for_records(out / "records.jsonl", 1, child));
    for (int i = 0; i < 3; ++i) child.signal(SIGINT);
    r = child.wait(10);
  }
  EXPECT_EQ(r.exit_code, 130) << r.err;
  orphans.expect_none_left();
  const auto before = records_in(out / "records.jsonl");
  EXPECT_GE(before.size(), 1u);
  // The manifest says what it said last ("running" or "interrupted"); either way it is whole.
  const std::string state = read_json(out / "manifest.json")["state"];
  EXPECT_TRUE(state == "running" || state == "interrupted") << state;
  std::string yaml = kHangsInTheMiddle;
  yaml.replace(yaml.find("timeout_s: 60"), 13, "timeout_s: 2");
  // The same config text is needed to resume: resume with --force-mix after shortening the limit.
  write_text(config, yaml);
  const ProcessResult resumed =
      run({config.string(), "--out", out.string(), "--resume", "--force-mix", "-q"}, 60, faults);
  EXPECT_EQ(resumed.exit_code, 1) << resumed.err;  // host_hang times out
  const auto after = records_in(out / "records.jsonl");
  EXPECT_EQ(ids_of(after), plan);
  expect_kept(before, after);
}

TEST(Signals, SigkillToTheWorkerFailsThatPointOnlyAndResumeRetriesIt) {
  TempDir dir;
  const auto config = dir / "config.yaml";
  write_text(config, kHangsInTheMiddle);
  const SpawnOptions faults = with_faults();
  const auto plan = plan_of(config, faults);
  const auto out = dir / "out";
  ProcessResult r;
  {
    ChildProcess child(run_argv({config.string(), "--out", out.string(), "-q"}, faults), dir.path(),
                       faults);
    ASSERT_TRUE(wait_for_records(out / "records.jsonl", 1, child));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const pid_t worker = worker_of(child.pid());
    ASSERT_GT(worker, 0);
    ::kill(worker, SIGKILL);  // the OOM killer, or a user's kill -9
    r = child.wait(30);
  }
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto records = records_in(out / "records.jsonl");
  ASSERT_EQ(records.size(), plan.size());
  EXPECT_EQ(records[1]["variant"], "host_hang");
  EXPECT_EQ(records[1]["status"], "failed");
  EXPECT_NE(records[1]["message"].get<std::string>().find("killed by SIGKILL"), std::string::npos);
  EXPECT_EQ(records[2]["status"], "ok") << "the run did not go on after the killed point";
  EXPECT_EQ(read_json(out / "manifest.json")["state"], "complete");
}

TEST(Signals, AStopSignalDuringStartUpEndsCleanly) {
  for (int sig : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(name_of(sig));
    TempDir dir;
    const auto config = dir / "config.yaml";
    write_text(config, kInterruptible);
    const auto plan = plan_of(config);
    const auto out = dir / "out";
    ProcessResult r;
    {
      ChildProcess child(run_argv({config.string(), "--out", out.string()}), dir.path());
      // The lock file appears once the folder is claimed, before the worker starts.
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (!std::filesystem::exists(out / ".runner.lock") &&
             std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      child.signal(sig);
      r = child.wait(30);
    }
    EXPECT_EQ(r.exit_code, 128 + sig) << r.err;
    EXPECT_NE(r.err.find("Resume with: runner"), std::string::npos) << r.err;
    const auto before = records_in(out / "records.jsonl");
    const ProcessResult resumed =
        run({config.string(), "--out", out.string(), "--resume", "-q"}, 120);
    EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
    expect_complete(out, plan);
    expect_kept(before, records_in(out / "records.jsonl"));
  }
}

// Points of a few hundred milliseconds under a 2-second limit, stopped for 3.5 s in the middle.
const char* const kStoppable = R"(experiment: stoppable
kernel: gemm
timeout_s: 2
repeat: {warmup: 0, min_samples: 1, max_samples: 1}
sweeps:
  - {variant: omp_serial, size: [120, 121, 122, 123, 124, 125]}
)";

enum class Stopped { group, worker, parent, group_tstp };

class StoppedRun : public ::testing::TestWithParam<Stopped> {};

TEST_P(StoppedRun, DoesNotCountAgainstTheTimeLimit) {
  const Stopped what = GetParam();
  TempDir dir;
  const auto config = dir / "config.yaml";
  // Each point runs its sample 30 times: a few hundred milliseconds on one core.
  std::string yaml = kStoppable;
  yaml.replace(yaml.find("min_samples: 1, max_samples: 1"), 30, "min_samples: 30, max_samples: 30");
  write_text(config, yaml);
  const auto plan = plan_of(config);
  const auto out = dir / "out";
  ProcessResult r;
  {
    ChildProcess child(run_argv({config.string(), "--out", out.string(), "-q"}), dir.path(),
                       {.new_process_group = true});
    ASSERT_TRUE(wait_for_records(out / "records.jsonl", 1, child));
    const pid_t worker = worker_of(child.pid());
    ASSERT_GT(worker, 0);
    auto send = [&](int sig) {
      switch (what) {
        case Stopped::group:
          child.signal_group(sig);
          break;
        case Stopped::group_tstp:
          child.signal_group(sig == SIGSTOP ? SIGTSTP : sig);
          break;
        case Stopped::worker:
          ::kill(worker, sig);
          break;
        case Stopped::parent:
          child.signal(sig);
          break;
      }
    };
    send(SIGSTOP);
    std::this_thread::sleep_for(std::chrono::milliseconds(3500));
    send(SIGCONT);
    r = child.wait(60);
  }
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  expect_complete(out, plan);
  for (const auto& rec : records_in(out / "records.jsonl"))
    EXPECT_EQ(rec.value("message", ""), "") << rec.dump();
}

INSTANTIATE_TEST_SUITE_P(Hostile, StoppedRun,
                         ::testing::Values(Stopped::group, Stopped::worker, Stopped::parent,
                                           Stopped::group_tstp),
                         [](const auto& p) {
                           switch (p.param) {
                             case Stopped::group:
                               return "WholeGroupSigstop";
                             case Stopped::worker:
                               return "WorkerSigstop";
                             case Stopped::parent:
                               return "ParentSigstop";
                             case Stopped::group_tstp:
                               return "WholeGroupSigtstp";
                           }
                           return "";
                         });

}  // namespace
}  // namespace runner::hostile
