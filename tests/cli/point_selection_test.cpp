// --only and --set on the command line (runner/spec/point_filter.hpp): the points a run records,
// the manifest's selection, a resume that continues it (and refuses another), and the shards of a
// submitted run, which get it in their rendered scripts.
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "tests/cli/child_process.hpp"
#include "tests/cli/results_dir.hpp"
#include "tests/unit/temp_dir.hpp"

namespace runner::cli_testing {
namespace {

using runner::testing::TempDir;

const char* const kConfig = R"(experiment: selection
kernel: gemm
repeat: {warmup: 1, min_samples: 2, max_samples: 2}
baseline: omp_serial
sweeps:
  - {variant: [omp_naive, omp_blocked], size: [16, 24, 32], threads: [1, 2]}
)";

// The point ids `--dry-run` lists with these arguments.
std::set<std::string> planned(const std::filesystem::path& config,
                              const std::vector<std::string>& options) {
  std::vector<std::string> args = {config.string(), "--dry-run"};
  args.insert(args.end(), options.begin(), options.end());
  const ProcessResult r = run_runner(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> ids;
  for (const auto& line : lines_of(r.out))
    if (line.starts_with("p")) ids.insert(line.substr(0, line.find(' ')));
  return ids;
}

std::set<std::string> recorded(const std::filesystem::path& jsonl) {
  std::set<std::string> ids;
  for (const auto& r : read_jsonl_strictly(jsonl).records) ids.insert(r["point_id"]);
  return ids;
}

TEST(PointSelection, OnlyRunsTheSelectedPointsAndTheManifestKeepsTheSelection) {
  TempDir dir;
  write_text(dir / "c.yaml", kConfig);
  const std::vector<std::string> only = {"--only", "size=16,24", "--only", "variant=omp_blocked"};
  const auto ids = planned(dir / "c.yaml", only);
  // 2 sizes × 2 thread counts of omp_blocked, and the two sizes' baselines.
  ASSERT_EQ(ids.size(), 6u);
  std::vector<std::string> args = {(dir / "c.yaml").string(), "--out", (dir / "out").string(), "-q",
                                   "--no-calibrate"};
  args.insert(args.end(), only.begin(), only.end());
  ProcessResult r = run_runner(args, 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(recorded(dir / "out" / "records.jsonl"), ids);
  const nlohmann::json manifest = read_json(dir / "out" / "manifest.json");
  EXPECT_EQ(manifest["selection"]["only"],
            nlohmann::json::array({"size=16,24", "variant=omp_blocked"}));
  EXPECT_EQ(manifest["points"].size(), ids.size());  // the plan is the selection

  // A resume continues the selection from the manifest: nothing is left to run, nothing added.
  r = run_runner({(dir / "c.yaml").string(), "--out", (dir / "out").string(), "--resume", "-q",
                  "--no-calibrate"},
                 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("resuming: 6 points already ok, 0 to run"), std::string::npos) << r.err;
  EXPECT_EQ(recorded(dir / "out" / "records.jsonl"), ids);

  // Another selection on resume would leave these records behind: refused, nothing touched.
  r = run_runner({(dir / "c.yaml").string(), "--out", (dir / "out").string(), "--resume", "-q",
                  "--no-calibrate", "--only", "size=32"},
                 120);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("--only size=16,24 --only variant=omp_blocked"), std::string::npos) << r.err;
  EXPECT_EQ(recorded(dir / "out" / "records.jsonl"), ids);
}

TEST(PointSelection, SetOverridesAnAxisForTheWholeRun) {
  TempDir dir;
  write_text(dir / "c.yaml", kConfig);
  const ProcessResult r =
      run_runner({(dir / "c.yaml").string(), "--out", (dir / "out").string(), "-q",
                  "--no-calibrate", "--set", "threads=2", "--set", "size=24"},
                 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = read_jsonl_strictly(dir / "out" / "records.jsonl").records;
  ASSERT_EQ(records.size(), 3u);  // omp_naive and omp_blocked at 2 threads, and the baseline
  for (const auto& rec : records) {
    EXPECT_EQ(rec["m"], 24);
    if (!rec["threads"].is_null()) {
      EXPECT_EQ(rec["threads"], 2);
    }
  }
  EXPECT_EQ(read_json(dir / "out" / "manifest.json")["selection"]["set"],
            nlohmann::json::array({"threads=2", "size=24"}));
}

TEST(PointSelection, TheShardsOfASubmittedRunGetTheSelection) {
  TempDir dir;
  write_text(dir / "c.yaml", kConfig);
  const auto bin = dir / "fake-slurm";
  std::filesystem::create_directories(bin);
  write_text(bin / "scontrol", "#!/bin/sh\necho 'scontrol: no cluster here' >&2\nexit 1\n");
  std::filesystem::permissions(bin / "scontrol", std::filesystem::perms::owner_all);
  const SpawnOptions no_cluster{.env = {{"PATH", bin.string() + ":/usr/bin:/bin"}}};
  const auto out = dir / "run";
  ProcessResult r =
      run_runner({"submit", (dir / "c.yaml").string(), "--out", out.string(), "--tasks", "2",
                  "--dry-run", "--only", "size=[16, 32]", "--set", "threads=1"},
                 60, no_cluster);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string script = read_text(out / "slurm" / "shard.sbatch");
  std::smatch line;
  ASSERT_TRUE(std::regex_search(script, line, std::regex(R"(\n *(\S+runner .*--shard .*) &\n)")))
      << script;
  EXPECT_NE(line[1].str().find("--only 'size=[16, 32]' --set threads=1"), std::string::npos)
      << line[1];
  // Both shards, run as the script runs them, record exactly the selected points between them.
  for (const char* shard : {"0", "1"}) {
    const std::string command =
        std::regex_replace(line[1].str(), std::regex(R"(\$\{shard\})"), shard) +
        " --no-calibrate -q";
    r = run_process({"/bin/sh", "-c", command}, 120);
    ASSERT_EQ(r.exit_code, 0) << command << "\n" << r.err;
  }
  std::set<std::string> both = recorded(out / "shards" / "0.jsonl");
  for (const auto& id : recorded(out / "shards" / "1.jsonl")) both.insert(id);
  EXPECT_EQ(both, planned(dir / "c.yaml", {"--only", "size=[16, 32]", "--set", "threads=1"}));
}

}  // namespace
}  // namespace runner::cli_testing
