// Who owns a results folder: a run never writes into a folder that holds something else, never
// shares one with another runner, and finds a folder it cannot use before any work.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <unistd.h>

#include <regex>

#include <gtest/gtest.h>

#include "tests/hostile/hostile.hpp"

namespace runner::hostile {
namespace {

using namespace cli_testing;

// A folder holding a finished run: config, plan and records, to be left alone.
struct PreviousRun {
  TempDir dir;
  std::filesystem::path config = dir / "config.yaml";
  std::filesystem::path out = dir / "out";
  std::set<std::string> plan;
  std::string jsonl, csv, manifest;
  PreviousRun() {
    write_text(config, kQuick);
    plan = plan_of(config);
    const ProcessResult r = run({config.string(), "--out", out.string(), "-q"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    snapshot();
  }
  void snapshot() {
    jsonl = read_text(out / "records.jsonl");
    csv = read_text(out / "records.csv");
    manifest = read_text(out / "manifest.json");
  }
  void expect_untouched() const {
    EXPECT_EQ(read_text(out / "records.jsonl"), jsonl) << "records.jsonl changed";
    EXPECT_EQ(read_text(out / "records.csv"), csv) << "records.csv changed";
    EXPECT_EQ(read_text(out / "manifest.json"), manifest) << "manifest.json changed";
  }
};

TEST(OutputFolder, ARunIntoAFinishedRunWithoutResumeIsRefusedAndChangesNothing) {
  PreviousRun previous;
  const ProcessResult r = run({previous.config.string(), "--out", previous.out.string(), "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // calibration/ is there when this machine's calibration store had one for the run to copy.
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex(R"(is not empty \(it holds (calibration, )?manifest\.json, records\.csv, )"
                        R"(records\.jsonl\))")))
      << r.err;
  EXPECT_NE(r.err.find("Add --resume"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 5.0);
  previous.expect_untouched();
}

TEST(OutputFolder, ARunOfAnotherConfigIntoIsRefusedToo) {
  PreviousRun previous;
  write_text(previous.dir / "other.yaml",
             "experiment: other\nkernel: transpose\nsweeps:\n  - {variant: omp_serial, size: 8}\n");
  const ProcessResult r =
      run({(previous.dir / "other.yaml").string(), "--out", previous.out.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("a run never overwrites results"), std::string::npos) << r.err;
  previous.expect_untouched();
}

class NonEmptyFolder : public ::testing::TestWithParam<std::string> {};

// Whatever a folder holds, a run without --resume leaves it alone.
TEST_P(NonEmptyFolder, IsRefusedBeforeAnyWork) {
  TempDir dir;
  write_text(dir / "config.yaml", kQuick);
  const auto out = dir / "out";
  std::filesystem::create_directories(out);
  const std::string what = GetParam();
  if (what == "subfolder")
    std::filesystem::create_directories(out / "notes");
  else
    write_text(out / what, "someone's file\n");
  const ProcessResult r = run({(dir / "config.yaml").string(), "--out", out.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("is not empty (it holds " + (what == "subfolder" ? "notes" : what)),
            std::string::npos)
      << r.err;
  for (const char* made : {"records.jsonl", "records.csv", "manifest.json"})
    if (what != made) {
      EXPECT_FALSE(std::filesystem::exists(out / made)) << made;
    }
  if (what != "subfolder") {
    EXPECT_EQ(read_text(out / what), "someone's file\n");
  }
}

INSTANTIATE_TEST_SUITE_P(Hostile, NonEmptyFolder,
                         ::testing::Values("records.jsonl", "manifest.json", "records.csv",
                                           "notes.txt", ".hidden", "subfolder"),
                         [](const auto& p) {
                           std::string name;
                           for (char c : p.param) name += std::isalnum(c) ? c : '_';
                           return name;
                         });

TEST(OutputFolder, AnEmptyFolderOrOneWithAStaleLockIsUsed) {
  TempDir dir;
  write_text(dir / "config.yaml", kQuick);
  const auto plan = plan_of(dir / "config.yaml");
  for (const bool stale_lock : {false, true}) {
    const auto out = dir / (stale_lock ? "stale" : "empty");
    std::filesystem::create_directories(out);
    // A lock file left by a killed run: the lock went with the process.
    if (stale_lock)
      write_text(out / ".runner.lock", "run pid 1 on gone since 2020-01-01T00:00:00Z");
    const ProcessResult r = run({(dir / "config.yaml").string(), "--out", out.string(), "-q"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    expect_complete(out, plan);
  }
}

TEST(OutputFolder, AFileWhereTheFolderShouldBeIsAUsageError) {
  TempDir dir;
  write_text(dir / "config.yaml", kQuick);
  write_text(dir / "out", "a file\n");
  const ProcessResult r = run({(dir / "config.yaml").string(), "--out", (dir / "out").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("exists and is not a folder"), std::string::npos) << r.err;
  EXPECT_EQ(read_text(dir / "out"), "a file\n");
}

TEST(OutputFolder, AFolderThatCannotBeCreatedIsRefusedWithExit3) {
  TempDir dir;
  write_text(dir / "config.yaml", kQuick);
  write_text(dir / "file", "x");
  const ProcessResult r =
      run({(dir / "config.yaml").string(), "--out", (dir / "file" / "out").string()});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("cannot create"), std::string::npos) << r.err;
}

TEST(OutputFolder, ADanglingLinkAsTheFolderIsRefusedWithExit3) {
  TempDir dir;
  write_text(dir / "config.yaml", kQuick);
  std::filesystem::create_symlink(dir / "nowhere" / "deeper", dir / "out");
  const ProcessResult r = run({(dir / "config.yaml").string(), "--out", (dir / "out").string()});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("cannot create"), std::string::npos) << r.err;
}

TEST(OutputFolder, ALinkToAFinishedRunIsAFinishedRun) {
  PreviousRun previous;
  std::filesystem::create_directory_symlink(previous.out, previous.dir / "link");
  const ProcessResult r =
      run({previous.config.string(), "--out", (previous.dir / "link").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  previous.expect_untouched();
}

TEST(OutputFolder, AReadOnlyFileSystemIsFoundBeforeAnyWork) {
  TempDir dir;
  write_text(dir / "config.yaml", kQuick);
  const auto mnt = dir / "ro";
  std::filesystem::create_directories(mnt);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", MS_RDONLY, "size=1m") != 0)
    GTEST_SKIP() << "cannot mount a read-only tmpfs here (needs root): " << std::strerror(errno);
  // No ceilings stored: the run would calibrate the CPU first (seconds) if it did not stop at once.
  const auto calibration = dir / "calibration";
  const ProcessResult r = run_process(
      {runner_binary(), (dir / "config.yaml").string(), "--out", (mnt / "out").string()}, 60,
      {.env = {{"RUNNER_CALIBRATION_DIR", calibration.string()}}});
  ::umount(mnt.c_str());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("Read-only file system"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 3.0) << "the folder was checked only after other work";
  EXPECT_FALSE(std::filesystem::exists(calibration)) << "calibrated before checking --out";
}

TEST(OutputFolder, AFolderAnotherRunnerHoldsIsRefusedAndNamesTheHolder) {
  PreviousRun previous;
  // Hold the lock as a running runner would.
  const int fd = ::open((previous.out / ".runner.lock").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  ASSERT_EQ(::pwrite(fd, "run pid 4242 on node7 since 2026", 32, 0), 32);
  const ProcessResult r =
      run({previous.config.string(), "--out", previous.out.string(), "--resume", "-q"});
  ::close(fd);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("is in use by another runner (run pid 4242 on node7 since 2026"),
            std::string::npos)
      << r.err;
  previous.expect_untouched();
}

TEST(OutputFolder, ResumeWithoutOutIsAUsageError) {
  TempDir dir;
  write_text(dir / "config.yaml", kQuick);
  const ProcessResult r =
      run({(dir / "config.yaml").string(), "--resume"}, 30, {.cwd = dir.path()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--resume needs --out DIR"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "results"));
}

TEST(OutputFolder, ResumeOfAFolderThatDoesNotExistStartsAfresh) {
  TempDir dir;
  write_text(dir / "config.yaml", kQuick);
  const auto plan = plan_of(dir / "config.yaml");
  const ProcessResult r =
      run({(dir / "config.yaml").string(), "--out", (dir / "new").string(), "--resume", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("holds no records yet; starting afresh"), std::string::npos) << r.err;
  expect_complete(dir / "new", plan);
}

TEST(OutputFolder, ThePrintedResumeCommandIsShellQuoted) {
  // A folder name with a space and a quote, stopped half-way: the printed command must work when
  // pasted back into a shell.
  TempDir dir;
  write_text(dir / "my config.yaml", kInterruptible);
  const auto plan = plan_of(dir / "my config.yaml");
  const auto out = dir / "it's out";
  ChildProcess child(run_argv({(dir / "my config.yaml").string(), "--out", out.string()}),
                     dir.path());
  ASSERT_TRUE(wait_for_records(out / "records.jsonl", 1, child));
  child.signal(SIGTERM);
  const ProcessResult r = child.wait(30);
  ASSERT_EQ(r.exit_code, 143) << r.err;
  const auto at = r.err.find("Resume with: ");
  ASSERT_NE(at, std::string::npos) << r.err;
  std::string command = r.err.substr(at + 13);
  command = command.substr(0, command.find('\n'));
  EXPECT_NE(command.find("'"), std::string::npos) << command;
  // Run exactly what was printed, with `runner` meaning the binary under test.
  const ProcessResult resumed =
      run_process({"/bin/sh", "-c", "runner() { \"$RUNNER\" \"$@\" --no-calibrate; }; " + command},
                  120, {.env = {{"RUNNER", runner_binary()}}});
  EXPECT_EQ(resumed.exit_code, 0) << command << "\n" << resumed.err;
  expect_complete(out, plan);
}

class FolderLostDuringTheRun : public ::testing::TestWithParam<std::string> {};

// A cleanup script or a user tidying up while the run goes on: the run stops and says where its
// records are (a move), or that they are gone (a deletion). It used to measure on into deleted
// files and end with "N records are safe in DIR" for a folder that did not exist.
TEST_P(FolderLostDuringTheRun, StopsAndSaysWhereTheRecordsAre) {
  TempDir dir;
  write_text(dir / "config.yaml", kInterruptible);
  const auto plan = plan_of(dir / "config.yaml");
  const auto out = dir / "out";
  const auto moved = dir / "moved";
  ProcessResult r;
  {
    ChildProcess child(run_argv({(dir / "config.yaml").string(), "--out", out.string(), "-q"}),
                       dir.path());
    ASSERT_TRUE(wait_for_records(out / "records.jsonl", 2, child));
    if (GetParam() == "moved")
      std::filesystem::rename(out, moved);
    else
      std::filesystem::remove_all(out);
    r = child.wait(60);
  }
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out)) << "the run made the folder again";
  if (GetParam() == "deleted") {
    EXPECT_NE(r.err.find("error: " + out.string() + " was deleted during the run: its "),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("record(s) went with it"), std::string::npos) << r.err;
    return;
  }
  const auto before = records_in(moved / "records.jsonl");
  EXPECT_GE(before.size(), 2u);
  EXPECT_LT(before.size(), plan.size()) << "the run went on after its folder was moved";
  EXPECT_NE(r.err.find("error: " + out.string() + " was moved to " + moved.string() +
                       " during the run. The run stopped: its " + std::to_string(before.size()) +
                       " record(s) are safe in " + moved.string()),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("Resume there with: runner " + (dir / "config.yaml").string() + " --out " +
                       moved.string() + " --resume"),
            std::string::npos)
      << r.err;
  const ProcessResult resumed =
      run({(dir / "config.yaml").string(), "--out", moved.string(), "--resume", "-q"});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  expect_complete(moved, plan);
  expect_kept(before, records_in(moved / "records.jsonl"));
}

INSTANTIATE_TEST_SUITE_P(Hostile, FolderLostDuringTheRun, ::testing::Values("moved", "deleted"));

}  // namespace
}  // namespace runner::hostile
