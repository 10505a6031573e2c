// The standard streams as batch systems and shells leave them: stderr a pipe whose reader is
// gone or a full disk, fds 0-2 closed at start. Diagnostics never stop a run, and no progress
// line ever lands in a results file.
#include <gtest/gtest.h>

#include "tests/hostile/hostile.hpp"

namespace runner::hostile {
namespace {

using namespace cli_testing;

// `bash -c SCRIPT runner ARGS...`: the script runs the runner as "$@" with its redirections, and
// exits with the runner's own exit code.
ProcessResult run_in_shell(const std::string& script, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/bin/bash", "-c", script, "runner"};
  for (const auto& a : run_argv(args)) argv.push_back(a);
  return run_process(argv, 120);
}

// Every line of every file of the folder a runner wrote is what belongs there: records are JSON
// objects, the lock file names its holder.
void expect_no_stray_lines(const std::filesystem::path& out) {
  for (const auto& l : lines_of(read_text(out / "records.jsonl")))
    EXPECT_TRUE(l.starts_with("{\"experiment\":")) << "a stray line in records.jsonl: " << l;
  const auto lock = lines_of(read_text(out / ".runner.lock"));
  ASSERT_EQ(lock.size(), 1u) << read_text(out / ".runner.lock");
  EXPECT_TRUE(lock[0].starts_with("run pid ")) << lock[0];
  EXPECT_EQ(read_text(out / "records.csv").find("spent, ETA"), std::string::npos);
}

class UnwritableStderr : public ::testing::TestWithParam<std::string> {};

TEST_P(UnwritableStderr, TheRunFinishesAndItsFilesSayComplete) {
  TempDir dir;
  write_text(dir / "config.yaml", kQuick);
  const auto plan = plan_of(dir / "config.yaml");
  const auto out = dir / "out";
  // A closed pipe: `true` ends at once, long before the first progress line. /dev/full: every
  // write fails with ENOSPC, as a log in a full quota does.
  const std::string redirect = GetParam() == "closed_pipe" ? "2>&1 | true" : "2>/dev/full";
  const ProcessResult r = run_in_shell("\"$@\" " + redirect + "; exit ${PIPESTATUS[0]}",
                                       {(dir / "config.yaml").string(), "--out", out.string()});
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0) << "killed or aborted by a diagnostic: " << r.err;
  expect_complete(out, plan);
}

TEST_P(UnwritableStderr, AnInterruptedRunStillEndsInterruptedAndResumable) {
  TempDir dir;
  write_text(dir / "config.yaml", kInterruptible);
  const auto plan = plan_of(dir / "config.yaml");
  const auto out = dir / "out";
  const std::string redirect = GetParam() == "closed_pipe" ? "2>&1 | true" : "2>/dev/full >&2";
  // SIGTERM after the first record; the runner's last messages (the resume command) go nowhere.
  // The script prints the runner's exit code.
  const std::string w = dir.path().string();
  const ProcessResult r =
      run_in_shell("( { \"$@\" & echo $! > '" + w + "/pid'; wait $!; echo $? > '" + w +
                       "/status'; } " + redirect + " ) &\nwhile [ ! -s '" + out.string() +
                       "/records.jsonl' ]; do sleep 0.01; done\nkill -TERM $(cat '" + w +
                       "/pid')\nwait\ncat '" + w + "/status'",
                   {(dir / "config.yaml").string(), "--out", out.string()});
  EXPECT_EQ(r.out, "143\n") << r.err;
  const nlohmann::json manifest = read_json(out / "manifest.json");
  EXPECT_EQ(manifest["state"], "interrupted");
  const auto before = records_in(out / "records.jsonl");
  const ProcessResult resumed =
      run({(dir / "config.yaml").string(), "--out", out.string(), "--resume", "-q"});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  expect_complete(out, plan);
  expect_kept(before, records_in(out / "records.jsonl"));
}

INSTANTIATE_TEST_SUITE_P(Hostile, UnwritableStderr, ::testing::Values("closed_pipe", "dev_full"));

class ClosedStandardFds : public ::testing::TestWithParam<std::string> {};

// As some batch wrappers start jobs: the files the runner opens must not become fds 0, 1 or 2.
TEST_P(ClosedStandardFds, NoProgressLineEndsUpInAResultsFile) {
  TempDir dir;
  write_text(dir / "config.yaml", kQuick);
  const auto plan = plan_of(dir / "config.yaml");
  const auto out = dir / "out";
  const ProcessResult r = run_in_shell("exec \"$@\" " + GetParam(),
                                       {(dir / "config.yaml").string(), "--out", out.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_complete(out, plan);
  expect_no_stray_lines(out);
}

INSTANTIATE_TEST_SUITE_P(Hostile, ClosedStandardFds,
                         ::testing::Values(">&- 2>&-", "2>&-", "<&- >&- 2>&-", "<&-"),
                         [](const auto& p) {
                           return std::string(p.param == ">&- 2>&-"       ? "stdout_and_stderr"
                                              : p.param == "2>&-"         ? "stderr"
                                              : p.param == "<&- >&- 2>&-" ? "all_three"
                                                                          : "stdin");
                         });

}  // namespace
}  // namespace runner::hostile
