// `runner submit` options and `runner cancel` arguments that are refused, or rendered, without a
// Slurm cluster: --mem, --exclude and slurm.setup in the rendered scripts of a --dry-run; bad
// values and folders that are not submitted runs as usage errors (exit 2) that leave nothing
// behind. The cluster side is tests/slurm/test_edges.sh.
#include <gtest/gtest.h>

#include "tests/cli/child_process.hpp"
#include "tests/cli/results_dir.hpp"
#include "tests/unit/temp_dir.hpp"

namespace runner::cli_testing {
namespace {

using runner::testing::TempDir;

// No cluster: a `scontrol` that fails at once comes first on PATH (the real one, pointed at no
// controller, may look for one for a minute), and no sbatch or scancel is ever reached.
SpawnOptions no_cluster(const TempDir& dir) {
  const auto bin = dir / "fake-slurm";
  std::filesystem::create_directories(bin);
  write_text(bin / "scontrol", "#!/bin/sh\necho 'scontrol: no cluster here' >&2\nexit 1\n");
  std::filesystem::permissions(bin / "scontrol", std::filesystem::perms::owner_all);
  return {.env = {{"PATH", bin.string() + ":/usr/bin:/bin"}}};
}

const char* const kConfig = R"(experiment: edges
kernel: gemm
slurm:
  mem: 16G
  exclude: node[01-03],gpu7
  setup:
    - module load cuda/12.4
    - source ~/venv/bin/activate
    - 'export RUNNER_MARK="a: b" # $HOME %j'
sweeps:
  - {variant: omp_serial, size: [16, 24]}
)";

struct Submitted {
  ProcessResult result;
  std::filesystem::path out;
};

Submitted submit(const TempDir& dir, std::vector<std::string> options) {
  write_text(dir / "edges.yaml", kConfig);
  const auto out = dir / "run";
  std::vector<std::string> args = {"submit", (dir / "edges.yaml").string(), "--out", out.string()};
  args.insert(args.end(), options.begin(), options.end());
  return {run_runner(args, 30, no_cluster(dir)), out};
}

// Index of `needle` in `text`, or npos; a shorthand for the order checks.
std::size_t at(const std::string& text, const std::string& needle) {
  return text.find(needle);
}

TEST(SlurmUsage, MemExcludeAndSetupAreRenderedIntoTheScripts) {
  TempDir dir;
  const Submitted s = submit(dir, {"--dry-run"});
  ASSERT_EQ(s.result.exit_code, 0) << s.result.err;
  EXPECT_LT(s.result.seconds, 10.0);
  EXPECT_NE(s.result.out.find("mem 16G"), std::string::npos) << s.result.out;
  EXPECT_NE(s.result.out.find("excluding node[01-03],gpu7"), std::string::npos) << s.result.out;
  const std::string shard = read_text(s.out / "slurm" / "shard.sbatch");
  const std::string collect = read_text(s.out / "slurm" / "collect.sbatch");
  EXPECT_NE(at(shard, "\n#SBATCH --mem=16G\n"), std::string::npos);
  EXPECT_NE(at(shard, "\n#SBATCH --exclude=node[01-03],gpu7\n"), std::string::npos);
  // Verbatim, in order, each on its own line, after the directives and before the runner starts.
  const std::string setup =
      "\nmodule load cuda/12.4\nsource ~/venv/bin/activate\n"
      "export RUNNER_MARK=\"a: b\" # $HOME %j\n";
  ASSERT_NE(at(shard, setup), std::string::npos) << shard;
  EXPECT_LT(at(shard, "#SBATCH --open-mode"), at(shard, setup));
  EXPECT_LT(at(shard, setup), at(shard, "\nsrun "));
  // The collect job starts the same runner: same setup and excluded nodes, no --mem.
  ASSERT_NE(at(collect, setup), std::string::npos) << collect;
  EXPECT_LT(at(collect, setup), at(collect, " collect " + s.out.string()));
  EXPECT_NE(at(collect, "\n#SBATCH --exclude=node[01-03],gpu7\n"), std::string::npos);
  EXPECT_EQ(at(collect, "\n#SBATCH --mem"), std::string::npos);
}

TEST(SlurmUsage, TheCommandLineOverridesTheYamlAndNoneDropsALine) {
  TempDir dir;
  const Submitted s = submit(dir, {"--dry-run", "--mem", "4000M", "--exclude", "none"});
  ASSERT_EQ(s.result.exit_code, 0) << s.result.err;
  const std::string shard = read_text(s.out / "slurm" / "shard.sbatch");
  EXPECT_NE(at(shard, "\n#SBATCH --mem=4000M\n"), std::string::npos) << shard;
  EXPECT_EQ(at(shard, "\n#SBATCH --exclude"), std::string::npos) << shard;
}

TEST(SlurmUsage, BadMemAndExcludeAreUsageErrorsBeforeAnythingIsWritten) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--mem", "16GiB"}, "--mem '16GiB' is not a memory size"},
      {{"--mem", "1.5G"}, "--mem '1.5G' is not a memory size"},
      {{"--mem", "-1"}, "--mem '-1' is not a memory size"},
      {{"--mem", ""}, "--mem '' is not a memory size"},
      {{"--exclude", "node[03-01]"}, "--exclude 'node[03-01]' is not a Slurm hostlist"},
      {{"--exclude", "n1 n2"}, "--exclude 'n1 n2' is not a Slurm hostlist (whitespace)"},
      {{"--exclude", "node[01-03"}, "--exclude 'node[01-03' is not a Slurm hostlist"},
      // what `runner validate` refuses in slurm.time, submit refuses on its command line
      {{"--time", "1 hour"}, "--time '1 hour' is not a Slurm time limit"},
      {{"--time", "1h"}, "--time '1h' is not a Slurm time limit"},
  };
  for (const auto& [options, message] : cases) {
    SCOPED_TRACE(options[0] + " " + options[1]);
    TempDir dir;
    const Submitted s = submit(dir, options);
    EXPECT_EQ(s.result.exit_code, 2) << s.result.err;
    EXPECT_NE(s.result.err.find(message), std::string::npos) << s.result.err;
    EXPECT_FALSE(std::filesystem::exists(s.out));
  }
}

TEST(SlurmUsage, CancelRefusesFoldersThatAreNotSubmittedRuns) {
  TempDir dir;
  std::filesystem::create_directories(dir / "empty");
  std::filesystem::create_directories(dir / "local");
  write_text(dir / "local" / "manifest.json", R"({"experiment": "e", "state": "complete"})");
  std::filesystem::create_directories(dir / "unsubmitted");
  // What a submission sbatch refused leaves: the plan, no job id.
  write_text(dir / "unsubmitted" / "manifest.json",
             R"({"experiment": "e", "points": [], "slurm": {"num_shards": 1, "submissions":
                 [{"arrays": [{"job_id": "", "shards": [0]}], "collect_job_id": ""}]}})");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"missing", "no such results directory"},
      {"empty", "no manifest.json"},
      {"local", "made by a local run"},
      {"unsubmitted", "no job was submitted"},
  };
  for (const auto& [name, message] : cases) {
    SCOPED_TRACE(name);
    const ProcessResult r = run_runner({"cancel", (dir / name).string()}, 30, no_cluster(dir));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  // Nothing was written into them (not even a lock file).
  EXPECT_TRUE(std::filesystem::is_empty(dir / "empty"));
  EXPECT_FALSE(std::filesystem::exists(dir / "unsubmitted" / "slurm"));
  EXPECT_EQ(run_runner({"cancel"}, 30, no_cluster(dir)).exit_code, 2);
}

}  // namespace
}  // namespace runner::cli_testing
