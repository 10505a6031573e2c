// The parts of runner/slurm/ that need no cluster: Slurm's index syntax, template rendering, the
// parsers of sbatch / scontrol / sacct output, array planning under MaxArraySize, and reading shard
// files against a plan. The cluster tests (test_submit.sh) cover the same code against a real
// Slurm; these pin the edge cases a one-node cluster does not produce.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "runner/slurm/array_indices.hpp"
#include "runner/slurm/array_plan.hpp"
#include "runner/slurm/sbatch_template.hpp"
#include "runner/slurm/shard_exit.hpp"
#include "runner/slurm/shard_results.hpp"
#include "runner/slurm/slurm_client.hpp"
#include "runner/slurm/slurm_run.hpp"

namespace runner::slurm {
namespace {

TEST(ArrayIndices, FormatsRanges) {
  EXPECT_EQ(format_index_list({}), "");
  EXPECT_EQ(format_index_list({5}), "5");
  EXPECT_EQ(format_index_list({3, 0, 1, 2, 7, 9, 10, 10}), "0-3,7,9-10");
}

TEST(ArrayIndices, ParsesSlurmSyntax) {
  EXPECT_EQ(parse_index_list("0-3,7%2"), (std::vector<int>{0, 1, 2, 3, 7}));
  EXPECT_EQ(parse_index_list("1-7:3"), (std::vector<int>{1, 4, 7}));
  EXPECT_EQ(parse_index_list("4"), (std::vector<int>{4}));
  EXPECT_THROW(parse_index_list("3-1"), std::invalid_argument);
  EXPECT_THROW(parse_index_list("a"), std::invalid_argument);
  EXPECT_THROW(parse_index_list("1,,2"), std::invalid_argument);
}

TEST(SbatchTemplate, FillsEveryFieldAndRefusesUnknownOnes) {
  EXPECT_EQ(render_template("a={{x}} b={{y}}\n", {{"x", "1"}, {"y", ""}, {"unused", "z"}}, "t"),
            "a=1 b=\n");
  try {
    render_template("line1\n#SBATCH {{nope}}\n", {{"x", "1"}}, "jobs/t.sbatch");
    FAIL() << "an unknown field must be an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("jobs/t.sbatch:2: unknown field {{nope}}"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(render_template("x {{ y", {}, "t"), std::invalid_argument);
}

TEST(SbatchTemplate, ExtraLinesJoinOptionValues) {
  EXPECT_EQ(sbatch_extra_lines({"--mail-type", "END", "--exclusive"}),
            "#SBATCH --mail-type END\n#SBATCH --exclusive");
  EXPECT_EQ(sbatch_extra_lines({}), "");
  EXPECT_THROW(sbatch_extra_lines({"END"}), std::invalid_argument);
  EXPECT_THROW(sbatch_extra_lines({"--comment=a\nb"}), std::invalid_argument);
  EXPECT_EQ(sbatch_line("--partition", "gpu"), "#SBATCH --partition=gpu");
  EXPECT_EQ(sbatch_line("--partition", ""), "");
}

TEST(SbatchTemplate, RefusesPathsTheScriptsCannotHold) {
  EXPECT_NO_THROW(require_plain_path("/scratch/me/results/gemm/20250101T120000Z-login1", "dir"));
  for (const char* bad : {"/a b", "/a%j", "/a$HOME", "/a'b", "/a\\b", "/a`b`", "/a;b"})
    EXPECT_THROW(require_plain_path(bad, "dir"), std::invalid_argument) << bad;
  EXPECT_THROW(require_plain_value("gpu a", "partition"), std::invalid_argument);
  EXPECT_NO_THROW(require_plain_value("gpu:a100:1", "gres"));
}

TEST(SlurmParsers, SbatchParsable) {
  EXPECT_EQ(parse_sbatch_job_id("12345\n"), "12345");
  EXPECT_EQ(parse_sbatch_job_id("12345;cluster1\n"), "12345");
  EXPECT_EQ(parse_sbatch_job_id("notice: maintenance friday\n678\n"), "678");
  EXPECT_FALSE(parse_sbatch_job_id("sbatch: error: invalid partition\n"));
}

TEST(SlurmParsers, ShowConfig) {
  const std::string text =
      "Configuration data as of 2026-01-01\nMaxArraySize            = 1001\nMaxJobCount = 10000\n";
  EXPECT_EQ(parse_config_value(text, "MaxArraySize"), "1001");
  EXPECT_FALSE(parse_config_value(text, "MaxArray"));
}

TEST(SlurmParsers, ScontrolRecordsWithSpacesAndArrays) {
  const std::string text =
      "JobId=12 ArrayJobId=10 ArrayTaskId=2 JobName=my job JobState=RUNNING Reason=None "
      "ExitCode=0:0 "
      "RunTime=00:01:02 NodeList=n1 Comment=two words\n"
      "JobId=10 ArrayJobId=10 ArrayTaskId=3-5%2 JobState=PENDING Reason=JobArrayTaskLimit "
      "ExitCode=0:0 "
      "RunTime=00:00:00 NodeList=\n"
      "JobId=11 ArrayJobId=10 ArrayTaskId=0 JobState=CANCELLED Reason=None ExitCode=0:15 "
      "RunTime=00:00:04 NodeList=n1\n";
  const auto records = parse_scontrol_records(text);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].at("JobName"), "my job");
  EXPECT_EQ(records[0].at("Comment"), "two words");
  const auto states = array_states_from_scontrol(records);
  ASSERT_EQ(states.size(), 5u);
  EXPECT_EQ(states.at(2).state, "RUNNING");
  EXPECT_EQ(states.at(2).elapsed, "00:01:02");
  EXPECT_EQ(states.at(4).state, "PENDING");
  EXPECT_EQ(states.at(4).reason, "JobArrayTaskLimit");
  EXPECT_EQ(states.at(0).exit_code, "0:15");
  EXPECT_FALSE(states.count(1));  // cancelled while pending: no record at all
}

TEST(SlurmParsers, Sacct) {
  const std::string text =
      "10_0|COMPLETED|0:0|00:00:05|n1|None\n10_1|CANCELLED by 0|0:15|00:00:02|n1|None\n"
      "10_[2-3%1]|PENDING|0:0|00:00:00|None "
      "assigned|JobArrayTaskLimit\n99_0|COMPLETED|0:0|00:00:01|n2|None\n";
  const auto states = array_states_from_sacct(text, "10");
  ASSERT_EQ(states.size(), 4u);
  EXPECT_EQ(states.at(1).state, "CANCELLED");
  EXPECT_EQ(states.at(3).state, "PENDING");
  EXPECT_EQ(states.at(3).node, "");
  EXPECT_TRUE(is_active(states.at(3).state));
  EXPECT_FALSE(is_active(states.at(1).state));
}

TEST(ArrayPlan, ShardsBelowMaxArraySizeRunAsThemselves) {
  const auto arrays = plan_arrays({0, 1, 2, 3}, 1001, 2, "");
  ASSERT_EQ(arrays.size(), 1u);
  EXPECT_EQ(arrays[0].array, "0-3%2");
  EXPECT_EQ(arrays[0].shard_map, "");
  EXPECT_EQ(arrays[0].script, "slurm/shard.sbatch");
  EXPECT_EQ(arrays[0].index_of(3), 3);
}

TEST(ArrayPlan, LargerShardsGoThroughMapsOfAtMostMaxArraySize) {
  // MaxArraySize 3: shards 0-2 direct; 3-7 in arrays of 3 and 2 elements with map files.
  const auto arrays = plan_arrays({0, 1, 2, 3, 4, 5, 6, 7}, 3, 0, ".resume2");
  ASSERT_EQ(arrays.size(), 3u);
  EXPECT_EQ(arrays[0].array, "0-2");
  EXPECT_EQ(arrays[0].script, "slurm/shard.resume2.sbatch");
  EXPECT_EQ(arrays[1].array, "0-2");
  EXPECT_EQ(arrays[1].shards, (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(arrays[1].shard_map, "slurm/shard_map.resume2.part1.txt");
  EXPECT_EQ(arrays[2].array, "0-1");
  EXPECT_EQ(arrays[2].script, "slurm/shard.resume2.part2.sbatch");
  EXPECT_EQ(arrays[2].index_of(7), 1);
  EXPECT_FALSE(arrays[2].index_of(3));
  // A resume of a single large shard: one element.
  const auto one = plan_arrays({1500}, 1001, 4, "");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].array, "0%4");
  EXPECT_EQ(one[0].shard_map, "slurm/shard_map.txt");
  EXPECT_THROW(plan_arrays({0}, 0, 0, ""), std::runtime_error);
}

TEST(ArrayPlan, ScatteredResumeListsBecomeAMap) {
  std::vector<int> every_other;
  for (int i = 0; i < 1000; i += 2) every_other.push_back(i);
  const auto arrays = plan_arrays(every_other, 1001, 0, "");
  ASSERT_EQ(arrays.size(), 1u);
  EXPECT_EQ(arrays[0].array, "0-499");
  EXPECT_FALSE(arrays[0].shard_map.empty());
}

class RunDirectory : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("slurm_units_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "shards");
    std::filesystem::create_directories(dir_ / "logs");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  SlurmRun plan() {
    nlohmann::ordered_json doc;
    doc["experiment"] = "t";
    doc["points"] = nlohmann::ordered_json::array();
    for (int i = 0; i < 6; ++i)
      doc["points"].push_back({{"point_id", "p" + std::to_string(i)},
                               {"key", "k" + std::to_string(i)},
                               {"shard", i % 3}});
    doc["slurm"] = {{"num_shards", 3}};
    return SlurmRun(dir_, doc);
  }
  std::filesystem::path dir_;
};

TEST_F(RunDirectory, ShardFilesAreMatchedWithThePlan) {
  // Shard 0: p0 ok, p3 failed. Shard 1: p1 failed then ok (the ok one wins), p4 missing, and a
  // truncated last line. Shard 2: no file at all. A point outside the plan is ignored.
  write("shards/0.jsonl", R"({"point_id":"p0","status":"ok"})"
                          "\n"
                          R"({"point_id":"p3","status":"failed"})"
                          "\n");
  write("shards/0.manifest.json",
        R"({"state":"complete","environment":{"host":"n1"},"fingerprint":"f"})");
  write("shards/1.jsonl", R"({"point_id":"p1","status":"failed"})"
                          "\n"
                          R"({"point_id":"p1","status":"ok"})"
                          "\n"
                          R"({"point_id":"zz","status":"ok"})"
                          "\n"
                          R"({"point_id":"p4","sta)");
  const SlurmRun run = plan();
  const ShardResults r = ShardResults::read(run);
  ASSERT_EQ(r.records.size(), 3u);
  EXPECT_EQ(r.records[0]["point_id"], "p0");  // plan order
  EXPECT_EQ(r.records[1]["point_id"], "p1");
  EXPECT_EQ(r.records[1]["status"], "ok");
  EXPECT_EQ(r.records[2]["point_id"], "p3");
  ASSERT_EQ(r.missing.size(), 3u);  // p2, p4, p5
  EXPECT_EQ(r.missing[0]->point_id, "p2");
  ASSERT_EQ(r.failed.size(), 1u);
  EXPECT_EQ(r.failed[0]->point_id, "p3");
  EXPECT_EQ(r.shards[0].state, "complete");
  EXPECT_TRUE(r.shards[0].needs_rerun());  // a failed point
  EXPECT_EQ(r.shards[1].missing, 1);
  EXPECT_EQ(r.shards[2].missing, 2);
  EXPECT_EQ(r.shards[2].state, "");
  EXPECT_EQ(r.warnings.size(), 2u);  // the truncated line, the point outside the plan
}

TEST_F(RunDirectory, SubmissionsRoundTripAndFindTheLatestElement) {
  SlurmRun run = plan();
  Submission first;
  first.submitted = "t0";
  first.settings.time = "01:00:00";
  first.settings.extra = {"--exclusive"};
  first.arrays = {{"100", "0-2", {0, 1, 2}, "", "slurm/shard.sbatch"}};
  first.collect_job_id = "101";
  run.submissions().push_back(first);
  Submission again;
  again.resume = true;
  again.arrays = {{"200", "0", {1}, "slurm/shard_map.resume1.txt", "slurm/shard.resume1.sbatch"}};
  run.submissions().push_back(again);
  run.save();

  const SlurmRun loaded = SlurmRun::load(dir_);
  ASSERT_EQ(loaded.submissions().size(), 2u);
  EXPECT_EQ(loaded.submissions()[0].settings.extra, std::vector<std::string>{"--exclusive"});
  EXPECT_EQ(loaded.latest_element(0)->tag(), "100_0");
  EXPECT_EQ(loaded.latest_element(1)->tag(), "200_0");  // the resubmission, through its map
  EXPECT_EQ(loaded.latest_element(1)->submission, 1u);
  EXPECT_EQ(loaded.points()[4].shard, 1);
  EXPECT_THROW(SlurmRun::load(dir_ / "shards"), std::runtime_error);
}

TEST_F(RunDirectory, ExitFiles) {
  write("logs/100_4.exit",
        "exit=143 job=104 array_job=100 task=4 shard=4 num_shards=8 node=n17 "
        "start=2026-01-01T00:00:00+00:00 "
        "end=2026-01-01T00:00:59+00:00 drained=1\n");
  const auto e = read_shard_exit(dir_, "100_4");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->exit_code, 143);
  EXPECT_TRUE(e->drained);
  EXPECT_EQ(e->node, "n17");
  EXPECT_FALSE(read_shard_exit(dir_, "100_5"));
}

}  // namespace
}  // namespace runner::slurm
