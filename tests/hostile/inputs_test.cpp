// Inputs as they come: every input bounded before anything is sized by it, every value read the
// same way whatever its spelling, and messages that show what a file holds (a NUL, a bidi
// override) and that work when pasted far from where the run started.
#include <sys/stat.h>

#include <regex>

#include <gtest/gtest.h>

#include "tests/hostile/hostile.hpp"

namespace runner::hostile {
namespace {

using namespace cli_testing;

// `runner validate` of a config with `line` under its first sweep's point (a one-point gemm).
ProcessResult validate_with(TempDir& dir, const std::string& yaml) {
  write_text(dir / "config.yaml", yaml);
  return run({"validate", (dir / "config.yaml").string()});
}

std::string one_point(const std::string& size = "8", const std::string& repeat = "") {
  return "experiment: t\nkernel: gemm\n" + (repeat.empty() ? "" : "repeat: {" + repeat + "}\n") +
         "sweeps:\n  - {variant: omp_naive, size: " + size + "}\n";
}

class HugeShardCount : public ::testing::TestWithParam<std::string> {};

TEST_P(HugeShardCount, IsRefusedBeforeAnythingIsSizedByIt) {
  // 1/100000000 took 5.4 s and 0.94 GB, 1/2147483647 ended in std::bad_alloc.
  TempDir dir;
  write_text(dir / "config.yaml", kQuick);
  const ProcessResult r =
      run({(dir / "config.yaml").string(), "--dry-run", "--shard", GetParam()}, 30);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--shard " + GetParam() + ": the matrix has 8 point(s), so 1 to 8 shards"),
            std::string::npos)
      << r.err;
  EXPECT_LT(r.seconds, 2.0);
}

INSTANTIATE_TEST_SUITE_P(Hostile, HugeShardCount,
                         ::testing::Values("1/100000000", "1/2147483647", "0/9"),
                         [](const auto& p) {
                           return "shards_" + p.param.substr(p.param.find('/') + 1);
                         });

TEST(Inputs, ANulInANameIsShownNotCutShort) {
  TempDir dir;
  const ProcessResult r = validate_with(dir, std::string("experiment: \"ab\\0cd\"\n") +
                                                 one_point().substr(one_point().find('\n') + 1));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("experiment 'ab\\x00cd' may hold only"), std::string::npos) << r.err;
}

TEST(Inputs, BidiAndZeroWidthCharactersAreEscapedInMessages) {
  // U+202E (right-to-left override) and U+200B (zero-width space): printed raw, they reorder or
  // hide what the message says.
  TempDir dir;
  const ProcessResult r =
      validate_with(dir,
                    "experiment: \"ab\u200bcd\u202eef\"\nkernel: gemm\nsweeps:\n"
                    "  - {variant: omp_naive, size: 8}\n");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("experiment 'ab\\u{200b}cd\\u{202e}ef'"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("\u202e"), std::string::npos) << "printed raw: " << r.err;
}

class DeepNesting : public ::testing::TestWithParam<int> {};

TEST_P(DeepNesting, GetsTheSameMessageAtAnyDepth) {
  // 70 levels got the reader's message, 500 yaml-cpp's "YAML syntax error: bad file".
  TempDir dir;
  const int depth = GetParam();
  const ProcessResult r =
      validate_with(dir, one_point() + "description: " + std::string(depth, '[') +
                             std::string(depth, ']') + "\n");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("the config nests deeper than 64 levels"), std::string::npos) << r.err;
  EXPECT_TRUE(r.err.starts_with((dir / "config.yaml").string() + ":5:")) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Hostile, DeepNesting, ::testing::Values(70, 500, 5000));

class TextWhereANumberGoes : public ::testing::TestWithParam<std::string> {};

TEST_P(TextWhereANumberGoes, IsRefusedWhateverItsSpelling) {
  // "8" was refused while `!!str 8` (text too) and 010 (octal 8 in YAML 1.1, 10 in 1.2) passed.
  TempDir dir;
  const ProcessResult r = validate_with(dir, one_point(GetParam()));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(GetParam().find('0') == 0 || GetParam().find("-0") == 0
                           ? "size '" + GetParam() + "' has a leading zero"
                           : "size must be an integer, got the text \"8\""),
            std::string::npos)
      << r.err;
}

INSTANTIATE_TEST_SUITE_P(Hostile, TextWhereANumberGoes,
                         ::testing::Values("\"8\"", "!!str 8", "'8'", "010", "08", "-010"),
                         [](const auto& p) { return "case" + std::to_string(p.index); });

class TinyNumber : public ::testing::TestWithParam<std::string> {};

TEST_P(TinyNumber, IsRefusedTheSameForEveryKey) {
  // target_rsd: 1e-400 (which underflows) was refused, max_seconds: 1e-320 (subnormal) accepted.
  TempDir dir;
  const ProcessResult r = validate_with(dir, one_point("8", GetParam()));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("is too small to be a number here"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Hostile, TinyNumber,
                         ::testing::Values("target_rsd: 1e-400", "target_rsd: 1e-320",
                                           "max_seconds: 1e-400", "max_seconds: 1e-320"),
                         [](const auto& p) {
                           std::string name;
                           for (char c : p.param) name += std::isalnum(c) ? c : '_';
                           return name;
                         });

TEST(Inputs, AnEmptyOutIsAUsageError) {
  // `--out ""` silently used the default folder.
  TempDir dir;
  write_text(dir / "config.yaml", kQuick);
  const ProcessResult r =
      run({(dir / "config.yaml").string(), "--out", ""}, 30, {.cwd = dir.path()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--out: an empty name: give a folder"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "results")) << "a default folder was made";
}

TEST(Inputs, ADanglingLinkAsOutSaysWhereItPoints) {
  // "cannot create: File exists" said nothing of the link.
  TempDir dir;
  write_text(dir / "config.yaml", kQuick);
  std::filesystem::create_symlink(dir / "nowhere", dir / "out");
  const ProcessResult r = run({(dir / "config.yaml").string(), "--out", (dir / "out").string()});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("cannot create: it is a symbolic link to " + (dir / "nowhere").string() +
                       ", which does not exist"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "nowhere"));
}

TEST(Inputs, AnUnreadableManifestSaysPermissionDeniedNotMissing) {
  // Permissions bind only an unprivileged user: the runner runs as nobody on its own folder.
  const UserNobodyLock nobody_lock;
  TempDir dir;
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all);
  write_text(dir / "config.yaml", kQuick);
  const auto out = dir / "out";
  const auto argv = as_nobody("", {(dir / "config.yaml").string(), "--out", out.string(), "-q"});
  if (argv.empty()) GTEST_SKIP() << "needs root, setpriv and the user nobody";
  const ProcessResult first = run_process(argv, 60);
  if (first.exit_code != 0) GTEST_SKIP() << "nobody cannot run the runner here: " << first.err;
  ::chmod((out / "manifest.json").c_str(), 0);
  auto resume = argv;
  resume.push_back("--resume");
  const ProcessResult r = run_process(resume, 60);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("manifest.json: it cannot be read (Permission denied)"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("it is missing"), std::string::npos) << r.err;
}

TEST(Inputs, ThePrintedResumeCommandWorksFromAnyFolder) {
  // Started with relative paths; the command is pasted from elsewhere (a batch log read later).
  TempDir dir;
  write_text(dir / "config.yaml", kInterruptible);
  const auto plan = plan_of(dir / "config.yaml");
  std::filesystem::create_directories(dir / "elsewhere");
  ChildProcess child(run_argv({"config.yaml", "--out", "out"}), dir.path(), {.cwd = dir.path()});
  ASSERT_TRUE(wait_for_records(dir / "out" / "records.jsonl", 1, child));
  child.signal(SIGTERM);
  const ProcessResult r = child.wait(30);
  ASSERT_EQ(r.exit_code, 143) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex("Resume with: (.*)"))) << r.err;
  const std::string command = m[1];
  EXPECT_EQ(command, "runner " + (dir / "config.yaml").string() + " --out " +
                         (dir / "out").string() + " --resume");
  const ProcessResult resumed =
      run_process({"/bin/sh", "-c", "runner() { \"$RUNNER\" \"$@\" --no-calibrate; }; " + command},
                  120, {.cwd = dir / "elsewhere", .env = {{"RUNNER", runner_binary()}}});
  EXPECT_EQ(resumed.exit_code, 0) << command << "\n" << resumed.err;
  expect_complete(dir / "out", plan);
}

TEST(Inputs, TheConfigurationReferenceShowsIdsWithTheirP) {
  // docs/configuration.md showed `1348c7eab054c578`: an id of earlier releases, not today's.
  const std::string doc = read_text(source_dir() / "docs" / "configuration.md");
  static const std::regex bare_id("`([0-9a-f]{16})`");
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), bare_id);
       it != std::sregex_iterator(); ++it)
    ADD_FAILURE() << "an id without its p: " << (*it)[1];
  EXPECT_NE(doc.find("`p1348c7eab054c578`"), std::string::npos);
  // And it is the id of the key the page names.
  TempDir dir;
  write_text(dir / "config.yaml",
             "experiment: t\nkernel: gemm\nsweeps:\n  - {variant: omp_blocked, dtype: float, "
             "size: 64, threads: 2}\n");
  EXPECT_EQ(plan_of(dir / "config.yaml"), std::set<std::string>{"p1348c7eab054c578"});
}

}  // namespace
}  // namespace runner::hostile
