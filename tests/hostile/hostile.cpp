#include "tests/hostile/hostile.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <regex>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

namespace runner::hostile {

using namespace cli_testing;

const char* const kInterruptible = R"(experiment: interruptible
kernel: gemm
repeat: {warmup: 1, min_samples: 10, max_samples: 10}
baseline: omp_serial
sweeps:
  - {variant: [omp_naive, omp_blocked], size: [96, 128, 160, 192], threads: [1, 2]}
)";

const char* const kQuick = R"(experiment: quick
kernel: gemm
repeat: {warmup: 0, min_samples: 1, max_samples: 1}
sweeps:
  - {variant: [omp_serial, omp_naive], threads: 1, size: [8, 12, 16, 20]}
)";

const char* const kHangsInTheMiddle = R"(experiment: hangs
kernel: fault
timeout_s: 60
repeat: {warmup: 0, min_samples: 1, max_samples: 1}
sweeps:
  - variant: [host_ok, host_hang]
  - {kernel: gemm, variant: omp_serial, size: 8}
)";

SpawnOptions with_faults(SpawnOptions options) {
  options.env["RUNNER_FAULT_INJECTION"] = "1";
  return options;
}

std::vector<std::string> run_argv(const std::vector<std::string>& args,
                                  const SpawnOptions& options) {
  std::vector<std::string> argv = {runner_binary_for(options)};
  argv.insert(argv.end(), args.begin(), args.end());
  // Subcommands take their own options; a run (the default) gets --no-calibrate.
  const bool is_run = !args.empty() && args[0] != "validate" && args[0] != "list" &&
                      args[0] != "submit" && args[0] != "collect" && args[0] != "status" &&
                      args[0] != "columns" && args[0] != "--version";
  if (is_run) argv.push_back("--no-calibrate");
  return argv;
}

ProcessResult run(const std::vector<std::string>& args, double timeout_s,
                  const SpawnOptions& options) {
  return run_process(run_argv(args, options), timeout_s, options);
}

std::set<std::string> plan_of(const std::filesystem::path& config, const SpawnOptions& options) {
  const ProcessResult r = run_runner({config.string(), "--dry-run"}, 30, options);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> ids;
  static const std::regex line(R"((p[0-9a-f]{16})  .*)");
  for (const auto& l : lines_of(r.out)) {
    std::smatch m;
    if (std::regex_match(l, m, line)) ids.insert(m[1]);
  }
  return ids;
}

std::vector<nlohmann::json> records_in(const std::filesystem::path& jsonl) {
  std::error_code ec;
  if (!std::filesystem::exists(jsonl, ec)) return {};
  const JsonlContent content = read_jsonl_strictly(jsonl);
  EXPECT_EQ(content.truncated_tail, "") << jsonl << ": a record line was cut short";
  std::set<std::string> seen;
  for (const auto& r : content.records)
    EXPECT_TRUE(seen.insert(r.value("point_id", "")).second)
        << jsonl << ": point recorded twice: " << r.value("point_id", "");
  return content.records;
}

std::set<std::string> ids_of(const std::vector<nlohmann::json>& records) {
  std::set<std::string> ids;
  for (const auto& r : records) ids.insert(r.value("point_id", ""));
  return ids;
}

void expect_kept(const std::vector<nlohmann::json>& before,
                 const std::vector<nlohmann::json>& after) {
  std::map<std::string, const nlohmann::json*> now;
  for (const auto& r : after) now[r.value("point_id", "")] = &r;
  for (const auto& r : before) {
    const std::string id = r.value("point_id", "");
    const auto it = now.find(id);
    if (it == now.end()) {
      ADD_FAILURE() << "record of point " << id << " was lost";
      continue;
    }
    if (r.value("status", "") == "ok") {
      EXPECT_EQ(*it->second, r) << "ok record " << id << " changed";
    }
  }
}

void expect_complete(const std::filesystem::path& out, const std::set<std::string>& plan) {
  const auto records = records_in(out / "records.jsonl");
  EXPECT_EQ(ids_of(records), plan);
  EXPECT_EQ(records.size(), plan.size());
  for (const auto& r : records) EXPECT_EQ(r.value("status", ""), "ok") << r.dump();
  const CsvTable csv = parse_csv(read_text(out / "records.csv"));
  EXPECT_EQ(csv.rows.size(), plan.size());
  const nlohmann::json manifest = read_json(out / "manifest.json");
  EXPECT_EQ(manifest["state"], "complete");
  EXPECT_EQ(manifest["records"], plan.size());
}

bool wait_for_records(const std::filesystem::path& jsonl, std::size_t n, ChildProcess& child,
                      double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    std::error_code ec;
    if (std::filesystem::exists(jsonl, ec)) {
      const std::string text = read_text(jsonl);
      if (static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) >= n) return true;
    }
    if (!child.running()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> pids;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
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
    if (ppid == parent && state != 'Z') pids.push_back(std::stoi(name));
  }
  return pids;
}

FinishedRun::FinishedRun() : config(dir / "config.yaml"), out(dir / "out") {
  write_text(config, kQuick);
  const ProcessResult r = run({config.string(), "--out", out.string(), "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

OrphanWatch::OrphanWatch() {
  EXPECT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
}
OrphanWatch::~OrphanWatch() {
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
}

void OrphanWatch::expect_none_left(double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    // Orphans are re-parented to this process as their subreaper.
    const auto left = children_of(::getpid());
    if (left.empty()) return;
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << left.size() << " process(es) outlived the runner, e.g. pid " << left.front();
      for (pid_t p : left) ::kill(p, SIGKILL);
      while (::waitpid(-1, nullptr, 0) > 0) {
      }
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::vector<std::string> under_shell_limit(const std::string& ulimit_args,
                                           const std::vector<std::string>& runner_args) {
  std::string command = "ulimit " + ulimit_args + " && exec";
  for (const auto& a : run_argv(runner_args)) command += " '" + a + "'";
  return {"/bin/sh", "-c", command};
}

std::vector<std::string> as_nobody(const std::string& prefix,
                                   const std::vector<std::string>& args) {
  if (::getuid() != 0 || !std::filesystem::exists("/usr/bin/setpriv") || !::getpwnam("nobody"))
    return {};
  std::vector<std::string> argv = {"/usr/bin/setpriv",      "--reuid=nobody", "--regid=nogroup",
                                   "--clear-groups",        "/bin/bash",      "-c",
                                   prefix + " exec \"$@\"", "runner"};
  for (const auto& a : run_argv(args)) argv.push_back(a);
  return argv;
}

UserNobodyLock::UserNobodyLock() {
  fd_ = ::open("/tmp/runner-tests-user-nobody.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ >= 0)
    while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
}

UserNobodyLock::~UserNobodyLock() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1))
    ++n;
  return n;
}

}  // namespace runner::hostile
