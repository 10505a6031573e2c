// Runners started together: each gets its own folder, or exactly one gets a shared one; no record
// goes to a file another runner replaced.
#include <gtest/gtest.h>

#include <memory>

#include "tests/hostile/hostile.hpp"

namespace runner::hostile {
namespace {

using namespace cli_testing;

std::vector<std::filesystem::path> folders_in(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_directory()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Concurrency, RunsStartedBackToBackGetAFolderEach) {
  TempDir dir;
  write_text(dir / "config.yaml", kQuick);
  const auto plan = plan_of(dir / "config.yaml");
  constexpr int kRuns = 6;
  for (int i = 0; i < kRuns; ++i) {
    const ProcessResult r = run({(dir / "config.yaml").string(), "-q"}, 60, {.cwd = dir.path()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const auto folders = folders_in(dir / "results" / "quick");
  ASSERT_EQ(folders.size(), static_cast<std::size_t>(kRuns));
  for (const auto& f : folders) expect_complete(f, plan);
}

TEST(Concurrency, RunsStartedAtOnceGetAFolderEach) {
  TempDir dir;
  write_text(dir / "config.yaml", kQuick);
  const auto plan = plan_of(dir / "config.yaml");
  constexpr int kRuns = 4;
  std::vector<std::unique_ptr<ChildProcess>> children;
  for (int i = 0; i < kRuns; ++i)
    children.push_back(
        std::make_unique<ChildProcess>(run_argv({(dir / "config.yaml").string(), "-q"}), dir.path(),
                                       SpawnOptions{.cwd = dir.path()}));
  for (auto& c : children) {
    const ProcessResult r = c->wait(120);
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  const auto folders = folders_in(dir / "results" / "quick");
  ASSERT_EQ(folders.size(), static_cast<std::size_t>(kRuns));
  for (const auto& f : folders) expect_complete(f, plan);
}

class SameFolder : public ::testing::TestWithParam<bool> {};

// Two runners on one --out (two runs, or two resumes): one runs, the other is refused at once.
TEST_P(SameFolder, OneRunsTheOtherIsRefused) {
  const bool resume = GetParam();
  TempDir dir;
  write_text(dir / "config.yaml", kInterruptible);
  const auto plan = plan_of(dir / "config.yaml");
  const auto out = dir / "out";
  std::vector<std::string> args = {(dir / "config.yaml").string(), "--out", out.string(), "-q"};
  if (resume) {
    // A first run stopped half-way, to be resumed twice at once.
    ChildProcess first(run_argv(args), dir.path());
    ASSERT_TRUE(wait_for_records(out / "records.jsonl", 2, first));
    first.signal(SIGTERM);
    ASSERT_EQ(first.wait(30).exit_code, 143);
    args.push_back("--resume");
  }
  const auto before = records_in(out / "records.jsonl");
  ChildProcess a(run_argv(args), dir.path());
  ASSERT_TRUE(wait_for_records(out / "records.jsonl", before.size() + 1, a));
  const ProcessResult b = run(args, 30);
  const ProcessResult ra = a.wait(120);
  EXPECT_EQ(ra.exit_code, 0) << ra.err;
  EXPECT_EQ(b.exit_code, 3) << b.err;
  EXPECT_NE(b.err.find("is in use by another runner (" + std::string(resume ? "resume" : "run") +
                       " pid " + std::to_string(a.pid())),
            std::string::npos)
      << b.err;
  expect_complete(out, plan);
  expect_kept(before, records_in(out / "records.jsonl"));
}

INSTANTIATE_TEST_SUITE_P(Hostile, SameFolder, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "Resumes" : "Runs"; });

TEST(Concurrency, ARunAndADryRunDoNotConflict) {
  // A dry run writes nothing and takes no lock: it may look at a folder in use.
  TempDir dir;
  write_text(dir / "config.yaml", kInterruptible);
  const auto plan = plan_of(dir / "config.yaml");
  const auto out = dir / "out";
  ChildProcess a(run_argv({(dir / "config.yaml").string(), "--out", out.string(), "-q"}),
                 dir.path());
  ASSERT_TRUE(wait_for_records(out / "records.jsonl", 1, a));
  const ProcessResult dry =
      run_runner({(dir / "config.yaml").string(), "--out", out.string(), "--dry-run"});
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_EQ(a.wait(120).exit_code, 0);
  expect_complete(out, plan);
}

}  // namespace
}  // namespace runner::hostile
