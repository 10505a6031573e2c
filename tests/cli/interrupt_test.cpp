// Stopping a run: SIGINT / SIGTERM stop it cleanly (exit 130 / 143, manifest "interrupted") and
// --resume finishes it; kill -9 at random moments never loses a finished record.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "tests/cli/child_process.hpp"
#include "tests/cli/results_dir.hpp"
#include "tests/unit/temp_dir.hpp"

namespace runner::cli_testing {
namespace {

using runner::testing::TempDir;

// 20 points of 10-200 ms each on a laptop core: long enough to interrupt in the middle, even on a
// fast host that polls the records file late.
const char* const kInterruptible = R"(experiment: interruptible
kernel: gemm
repeat: {warmup: 1, min_samples: 10, max_samples: 10}
baseline: omp_serial
sweeps:
  - {variant: [omp_naive, omp_blocked], size: [96, 128, 160, 192], threads: [1, 2]}
)";
constexpr std::size_t kInterruptiblePoints = 20;

std::set<std::string> dry_run_ids(const std::filesystem::path& config) {
  const ProcessResult r = run_runner({config.string(), "--dry-run"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> ids;
  for (const auto& line : lines_of(r.out))
    if (line.size() > 19 && line[0] == 'p' && line[17] == ' ') ids.insert(line.substr(0, 17));
  return ids;
}

std::size_t complete_lines(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return 0;
  const std::string text = read_text(file);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

bool wait_for_records(const std::filesystem::path& jsonl, std::size_t n, ChildProcess& child,
                      double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    if (complete_lines(jsonl) >= n) return true;
    if (!child.running()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

// Point ids of a records.jsonl, every line complete and every record ok, no id twice.
std::vector<std::string> recorded_ids(const std::filesystem::path& jsonl) {
  std::error_code ec;
  if (!std::filesystem::exists(jsonl, ec)) return {};
  const JsonlContent content = read_jsonl_strictly(jsonl);
  EXPECT_EQ(content.truncated_tail, "") << "a record line was cut short";
  std::vector<std::string> ids;
  std::set<std::string> unique;
  for (const auto& r : content.records) {
    EXPECT_EQ(r["status"], "ok") << r.dump();
    ids.push_back(r["point_id"]);
    EXPECT_TRUE(unique.insert(ids.back()).second) << "point recorded twice: " << ids.back();
  }
  return ids;
}

class Interrupt : public ::testing::TestWithParam<int> {};

TEST_P(Interrupt, StopsCleanlyAndResumeCompletes) {
  const int sig = GetParam();
  TempDir dir;
  const auto config = dir / "config.yaml";
  write_text(config, kInterruptible);
  const auto out = dir / "out";
  const auto expected = dry_run_ids(config);
  ASSERT_EQ(expected.size(), kInterruptiblePoints);

  {
    // SIGINT as a terminal sends it (to the whole process group); SIGTERM as kill(1) does.
    ChildProcess child({runner_binary(), config.string(), "--out", out.string()}, dir.path(),
                       {.new_process_group = true});
    ASSERT_TRUE(wait_for_records(out / "records.jsonl", 1, child, 60)) << "no record appeared";
    if (sig == SIGINT)
      child.signal_group(SIGINT);
    else
      child.signal(SIGTERM);
    const ProcessResult r = child.wait(30);
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.exit_code, 128 + sig) << r.err;
    EXPECT_NE(r.err.find(sig == SIGINT ? "Interrupted by SIGINT" : "Interrupted by SIGTERM"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("--resume"), std::string::npos) << r.err;
  }
  const auto before = recorded_ids(out / "records.jsonl");
  EXPECT_GE(before.size(), 1u);
  EXPECT_LT(before.size(), kInterruptiblePoints) << "the run finished before the signal";
  const nlohmann::json interrupted = read_json(out / "manifest.json");
  EXPECT_EQ(interrupted["state"], "interrupted");
  EXPECT_EQ(interrupted["records"], before.size());
  EXPECT_EQ(parse_csv(read_text(out / "records.csv")).rows.size(), before.size());

  const ProcessResult resumed =
      run_runner({config.string(), "--out", out.string(), "--resume", "-q"}, 120);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming: " + std::to_string(before.size()) + " points already ok"),
            std::string::npos)
      << resumed.err;
  const auto after = recorded_ids(out / "records.jsonl");
  EXPECT_EQ(std::set<std::string>(after.begin(), after.end()), expected);
  ASSERT_GE(after.size(), before.size());
  EXPECT_TRUE(std::equal(before.begin(), before.end(), after.begin()))
      << "finished records were rewritten";
  const nlohmann::json complete = read_json(out / "manifest.json");
  EXPECT_EQ(complete["state"], "complete");
  EXPECT_EQ(complete["records"], kInterruptiblePoints);
  const CsvTable csv = parse_csv(read_text(out / "records.csv"));
  EXPECT_EQ(csv.rows.size(), kInterruptiblePoints);
  for (std::size_t i = 0; i < csv.rows.size(); ++i) {
    if (csv.at(i, "is_baseline") != "true") {
      EXPECT_FALSE(csv.at(i, "speedup").empty()) << csv.at(i, "point_id");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cli, Interrupt, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& p) { return p.param == SIGINT ? "SIGINT" : "SIGTERM"; });

// Processes whose parent is this test process (orphans re-parented to it as a subreaper).
std::vector<pid_t> children_of_this_process() {
  std::vector<pid_t> pids;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    std::error_code ec;
    std::string stat;
    try {
      stat = read_text(e.path() / "stat");
    } catch (const std::exception&) {
      continue;
    }
    // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == ::getpid() && state != 'Z') pids.push_back(std::stoi(name));
  }
  return pids;
}

// After the parent is killed, whatever it had started must go away by itself.
void expect_no_orphans_left(double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    const auto left = children_of_this_process();
    if (left.empty()) return;
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << left.size() << " process(es) outlived the killed runner, e.g. pid "
                    << left.front();
      for (pid_t p : left) ::kill(p, SIGKILL);
      while (::waitpid(-1, nullptr, 0) > 0) {
      }
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

TEST(KillDashNine, RandomMomentsLoseNoFinishedRecord) {
  TempDir dir;
  const auto config = dir / "config.yaml";
  // 160 quick points: each costs little more than its record's fsyncs.
  std::string yaml =
      "experiment: killable\nkernel: gemm\nrepeat: {warmup: 0, min_samples: 1, max_samples: 1}\n"
      "sweeps:\n  - {variant: [omp_serial, omp_naive], threads: 1, size: [";
  for (int s = 4; s < 84; ++s) yaml += (s > 4 ? ", " : "") + std::to_string(s);
  yaml += "]}\n";
  write_text(config, yaml);
  const auto expected = dry_run_ids(config);
  ASSERT_EQ(expected.size(), 160u);

  // An uninterrupted run: the reference point set, and the time a point takes.
  const auto reference = dir / "reference";
  const ProcessResult full = run_runner({config.string(), "--out", reference.string(), "-q"}, 120);
  ASSERT_EQ(full.exit_code, 0) << full.err;
  const auto reference_ids = recorded_ids(reference / "records.jsonl");
  EXPECT_EQ(std::set<std::string>(reference_ids.begin(), reference_ids.end()), expected);
  const double per_point_s = full.seconds / static_cast<double>(expected.size());

  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  const unsigned seed = std::random_device{}();
  std::mt19937 random(seed);
  SCOPED_TRACE("seed " + std::to_string(seed) + ", full run " + std::to_string(full.seconds) +
               " s");

  // Each trial resumes the run and kills it at a random moment: every fourth trial within its first
  // 50 ms (start-up, the kept records being rewritten), the others once 1 to 4 more records have
  // appeared plus up to two points' time (between and inside points, records and CSV being
  // written). Waiting for records, not for a fixed time, keeps the kills inside the run however
  // loaded the machine is.
  std::uniform_real_distribution<double> early(0.0, 0.05), late(0.0, 2 * per_point_s);
  std::uniform_int_distribution<std::size_t> more(1, 4);
  const auto out = dir / "out";
  std::set<std::string> finished;
  constexpr int kTrials = 24;
  int killed_alive = 0;
  std::string progress;  // records after each trial, printed for the log
  for (int trial = 0; trial < kTrials && !::testing::Test::HasFailure(); ++trial) {
    std::vector<std::string> argv = {runner_binary(), config.string(), "--out", out.string(), "-q"};
    if (trial > 0) argv.push_back("--resume");
    {
      ChildProcess child(argv, dir.path());
      if (trial % 4 == 0) {
        std::this_thread::sleep_for(std::chrono::duration<double>(early(random)));
      } else {
        wait_for_records(out / "records.jsonl", finished.size() + more(random), child, 60);
        std::this_thread::sleep_for(std::chrono::duration<double>(late(random)));
      }
      if (child.running()) ++killed_alive;
      child.signal(SIGKILL);
      const ProcessResult r = child.wait(30);
      if (r.term_signal == 0) {
        EXPECT_EQ(r.exit_code, 0) << r.err;
      }
    }
    expect_no_orphans_left(5.0);
    const auto ids = recorded_ids(out / "records.jsonl");
    const std::set<std::string> now(ids.begin(), ids.end());
    for (const auto& id : finished)
      EXPECT_TRUE(now.count(id)) << "trial " << trial << " lost record " << id;
    for (const auto& id : now) EXPECT_TRUE(expected.count(id)) << id;
    finished.insert(now.begin(), now.end());
    progress += " " + std::to_string(now.size());
  }
  std::printf("kill -9: %d trials, %d hit a running process; records after each:%s\n", kTrials,
              killed_alive, progress.c_str());
  EXPECT_GE(killed_alive, 20) << "too few kills hit a running process to mean anything";
  EXPECT_LT(finished.size(), expected.size()) << "the trials ran out of points to interrupt";
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 0), 0);

  const ProcessResult last =
      run_runner({config.string(), "--out", out.string(), "--resume", "-q"}, 120);
  ASSERT_EQ(last.exit_code, 0) << last.err;
  const auto ids = recorded_ids(out / "records.jsonl");
  EXPECT_EQ(ids.size(), expected.size());
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()), expected);
  EXPECT_EQ(read_json(out / "manifest.json")["state"], "complete");
  EXPECT_EQ(parse_csv(read_text(out / "records.csv")).rows.size(), expected.size());
}

}  // namespace
}  // namespace runner::cli_testing
