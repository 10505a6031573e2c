// The parts of runner/slurm/ that need no cluster: Slurm's index syntax, template rendering, the
// parsers of sbatch / scontrol / sacct output, array planning under MaxArraySize and
// max_array_tasks, reading shard files against a plan, the .exit lines of requeued elements, what
// status and collect make of a shard, and the identities collect compares. The cluster tests
// (test_submit.sh) cover the same code against a real Slurm; these pin the edge cases a one-node
// cluster does not produce.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "runner/run/resume.hpp"

#include "runner/slurm/array_indices.hpp"
#include "runner/slurm/array_plan.hpp"
#include "runner/slurm/cancel.hpp"
#include "runner/slurm/sbatch_template.hpp"
#include "runner/slurm/shard_exit.hpp"
#include "runner/slurm/shard_identity.hpp"
#include "runner/slurm/shard_results.hpp"
#include "runner/slurm/shard_state.hpp"
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

TEST(SbatchTemplate, SetupLinesAreVerbatimAndInOrder) {
  EXPECT_EQ(setup_lines({}), "");
  EXPECT_EQ(setup_lines({"module load cuda/12.4", "", "echo \"$HOME\" 'a: b' %j # x"}),
            "module load cuda/12.4\n\necho \"$HOME\" 'a: b' %j # x");
  EXPECT_THROW(setup_lines({"a\nb"}), std::invalid_argument);
  EXPECT_THROW(setup_lines({std::string("a\0b", 3)}), std::invalid_argument);
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

TEST(SlurmParsers, MaxArrayTasksInSchedulerParameters) {
  EXPECT_EQ(parse_max_array_tasks("batch_sched_delay=0,max_array_tasks=2"), 2);
  EXPECT_EQ(parse_max_array_tasks("max_array_tasks=1000"), 1000);
  EXPECT_EQ(parse_max_array_tasks(" bf_continue , max_array_tasks=7 ,default_queue_depth=50"), 7);
  EXPECT_FALSE(parse_max_array_tasks("batch_sched_delay=0"));
  EXPECT_FALSE(parse_max_array_tasks("(null)"));
  EXPECT_FALSE(parse_max_array_tasks("max_array_tasks_extra=3"));
  EXPECT_FALSE(parse_max_array_tasks("max_array_tasks=x"));
}

TEST(SlurmParsers, ArrayLimitsOfShowConfig) {
  const auto both = parse_array_limits(
      "MaxArraySize            = 1001\n"
      "SchedulerParameters     = batch_sched_delay=0,max_array_tasks=2\n");
  ASSERT_TRUE(both);
  EXPECT_EQ(both->max_array_size, 1001);
  EXPECT_EQ(both->max_array_tasks, 2);
  EXPECT_EQ(both->elements_per_array(), 2);
  const auto none =
      parse_array_limits("MaxArraySize            = 3\nSchedulerParameters     = (null)\n");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->max_array_tasks, 0);
  EXPECT_EQ(none->elements_per_array(), 3);
  // max_array_tasks above MaxArraySize: the indices still bound the array.
  EXPECT_EQ((ArrayLimits{4, 100}).elements_per_array(), 4);
  EXPECT_FALSE(parse_array_limits("SchedulerParameters = max_array_tasks=2\n"));
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
      "RunTime=00:00:04 NodeList=n1\n"
      "JobId=13 ArrayJobId=10 ArrayTaskId=6 JobState=PENDING Reason=BeginTime Requeue=1 "
      "Restarts=1 ExitCode=0:0 RunTime=00:00:00 NodeList=\n";
  const auto records = parse_scontrol_records(text);
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0].at("JobName"), "my job");
  EXPECT_EQ(records[0].at("Comment"), "two words");
  const auto states = array_states_from_scontrol(records);
  ASSERT_EQ(states.size(), 6u);
  EXPECT_EQ(states.at(2).state, "RUNNING");
  EXPECT_EQ(states.at(2).elapsed, "00:01:02");
  EXPECT_EQ(states.at(4).state, "PENDING");
  EXPECT_EQ(states.at(4).reason, "JobArrayTaskLimit");
  EXPECT_EQ(states.at(0).exit_code, "0:15");
  EXPECT_EQ(states.at(0).restarts, -1);  // no Restarts field
  EXPECT_FALSE(states.count(1));         // cancelled while pending: no record at all
  // A requeued element: same array index, a new job id, Restarts counts the requeues.
  EXPECT_EQ(states.at(6).state, "PENDING");
  EXPECT_EQ(states.at(6).restarts, 1);
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
  const auto arrays = plan_arrays({0, 1, 2, 3}, {1001, 0}, 2, "");
  ASSERT_EQ(arrays.size(), 1u);
  EXPECT_EQ(arrays[0].array, "0-3%2");
  EXPECT_EQ(arrays[0].shard_map, "");
  EXPECT_EQ(arrays[0].script, "slurm/shard.sbatch");
  EXPECT_EQ(arrays[0].index_of(3), 3);
}

TEST(ArrayPlan, LargerShardsGoThroughMapsOfAtMostMaxArraySize) {
  // MaxArraySize 3: shards 0-2 direct; 3-7 in arrays of 3 and 2 elements with map files.
  const auto arrays = plan_arrays({0, 1, 2, 3, 4, 5, 6, 7}, {3, 0}, 0, ".resume2");
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
  const auto one = plan_arrays({1500}, {1001, 0}, 4, "");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].array, "0%4");
  EXPECT_EQ(one[0].shard_map, "slurm/shard_map.txt");
  EXPECT_THROW(plan_arrays({0}, {0, 0}, 0, ""), std::runtime_error);
}

TEST(ArrayPlan, MaxArrayTasksSplitsArraysByElements) {
  // max_array_tasks 2: shards 0-4 keep their indices, in arrays of at most two elements.
  const auto arrays = plan_arrays({0, 1, 2, 3, 4}, {1001, 2}, 1, "");
  ASSERT_EQ(arrays.size(), 3u);
  EXPECT_EQ(arrays[0].array, "0-1%1");
  EXPECT_EQ(arrays[0].script, "slurm/shard.sbatch");
  EXPECT_EQ(arrays[1].array, "2-3%1");
  EXPECT_EQ(arrays[1].script, "slurm/shard.part1.sbatch");
  EXPECT_EQ(arrays[1].shard_map, "");
  EXPECT_EQ(arrays[1].index_of(3), 3);
  EXPECT_EQ(arrays[2].array, "4%1");
  EXPECT_EQ(arrays[2].script, "slurm/shard.part2.sbatch");
  for (const auto& a : arrays) EXPECT_LE(a.shards.size(), 2u);
  // A resume of scattered shards: "1,3" and "7" (two elements at most each).
  const auto resume = plan_arrays({7, 1, 3}, {1001, 2}, 0, ".resume1");
  ASSERT_EQ(resume.size(), 2u);
  EXPECT_EQ(resume[0].array, "1,3");
  EXPECT_EQ(resume[1].array, "7");
  EXPECT_EQ(resume[1].script, "slurm/shard.resume1.part1.sbatch");
  // Both limits: indices below 3 direct (two per array), the rest mapped, two per array.
  const auto both = plan_arrays({0, 1, 2, 3, 4, 5}, {3, 2}, 0, "");
  ASSERT_EQ(both.size(), 4u);
  EXPECT_EQ(both[0].array, "0-1");
  EXPECT_EQ(both[1].array, "2");
  EXPECT_EQ(both[2].array, "0-1");
  EXPECT_EQ(both[2].shards, (std::vector<int>{3, 4}));
  EXPECT_EQ(both[2].shard_map, "slurm/shard_map.part2.txt");
  EXPECT_EQ(both[3].shards, (std::vector<int>{5}));
  EXPECT_EQ(both[3].index_of(5), 0);
  // max_array_tasks larger than MaxArraySize changes nothing.
  EXPECT_EQ(plan_arrays({0, 1, 2, 3}, {1001, 5000}, 0, "").size(), 1u);
}

TEST(ArrayPlan, ScatteredResumeListsBecomeAMap) {
  std::vector<int> every_other;
  for (int i = 0; i < 1000; i += 2) every_other.push_back(i);
  const auto arrays = plan_arrays(every_other, {1001, 0}, 0, "");
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

TEST_F(RunDirectory, NewSettingsAndCancellationsRoundTrip) {
  SlurmRun run = plan();
  Submission first;
  first.settings.mem = "16G";
  first.settings.exclude = "node[01-03],gpu7";
  first.settings.setup = {"module load cuda/12.4", "source ~/venv/bin/activate"};
  first.arrays = {{"100", "0-2", {0, 1, 2}, "", "slurm/shard.sbatch"}};
  first.collect_job_id = "101";
  first.cancelled = "2026-01-01T00:00:00Z";
  first.cancelled_shards = {1, 2};
  run.submissions().push_back(first);
  run.save();
  const SlurmRun loaded = SlurmRun::load(dir_);
  const Submission& s = loaded.submissions().at(0);
  EXPECT_EQ(s.settings.mem, "16G");
  EXPECT_EQ(s.settings.exclude, "node[01-03],gpu7");
  EXPECT_EQ(s.settings.setup, first.settings.setup);
  EXPECT_EQ(s.cancelled, "2026-01-01T00:00:00Z");
  EXPECT_EQ(s.cancelled_shards, (std::vector<int>{1, 2}));
  // Shard 0 ended before the cancel: not cancelled; 1 and 2 were queued or running.
  EXPECT_EQ(cancelled_at(loaded, loaded.latest_element(0), 0), std::nullopt);
  EXPECT_EQ(cancelled_at(loaded, loaded.latest_element(1), 1), "2026-01-01T00:00:00Z");
  // Settings of earlier releases have none of the new keys.
  EXPECT_EQ(JobSettings::from_json({{"time", "01:00:00"}}).setup, std::vector<std::string>{});
}

TEST_F(RunDirectory, CancelTargetsEveryJobOfEverySubmissionCollectJobsFirst) {
  SlurmRun run = plan();
  Submission first;
  first.arrays = {{"100", "0-1", {0, 1}, "", "slurm/shard.sbatch"},
                  {"102", "2", {2}, "", "slurm/shard.part1.sbatch"}};
  first.collect_job_id = "103";
  run.submissions().push_back(first);
  Submission broken;  // sbatch refused the collect job of this one
  broken.resume = true;
  broken.arrays = {{"200", "1", {1}, "", "slurm/shard.resume1.sbatch"}};
  run.submissions().push_back(broken);
  Submission again;
  again.resume = true;
  again.arrays = {{"300", "0", {2}, "slurm/shard_map.resume2.txt", "slurm/shard.resume2.sbatch"}};
  again.collect_job_id = "301";
  run.submissions().push_back(again);
  std::vector<std::string> ids;
  for (const auto& t : cancel_targets(run))
    ids.push_back(fmt::format("{}{}@{}", t.collect ? "c" : "a", t.job_id, t.submission));
  EXPECT_EQ(ids,
            (std::vector<std::string>{"c103@0", "c301@2", "a100@0", "a102@0", "a200@1", "a300@2"}));
  EXPECT_EQ(run.submissions()[2].arrays[0].shard_at(0), 2);  // through its map
  EXPECT_EQ(run.submissions()[0].arrays[1].shard_at(2), 2);
  EXPECT_EQ(run.submissions()[0].arrays[1].shard_at(0), std::nullopt);
}

TEST_F(RunDirectory, PlansOfEarlierReleasesGetTheirIdsNormalised) {
  nlohmann::ordered_json doc;
  doc["points"] = {{{"point_id", "0123456789abcdef"}, {"key", "k"}, {"shard", 0}}};
  doc["slurm"] = {{"num_shards", 1}};
  write("shards/0.jsonl", R"({"point_id":"0123456789abcdef","status":"ok"})"
                          "\n");
  const SlurmRun run(dir_, doc);
  EXPECT_EQ(run.points()[0].point_id, "p0123456789abcdef");
  const ShardResults r = ShardResults::read(run);
  EXPECT_EQ(r.records.size(), 1u);  // not "outside the plan"
  EXPECT_TRUE(r.missing.empty());
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
  EXPECT_TRUE(e->ended);
  EXPECT_EQ(e->restarts, 0);  // a line of an earlier release: the first attempt
  EXPECT_FALSE(read_shard_exit(dir_, "100_5"));
}

TEST_F(RunDirectory, ExitFilesOfRequeuedElements) {
  // Attempt 1 started, srun came back with 0 after a node failure, then Slurm requeued the element:
  // attempt 2 started and is not over. The file's last attempt is the second, not ended.
  write("logs/100_1.exit",
        "start job=101 array_job=100 task=1 shard=1 num_shards=2 node=n1 start=t0 restarts=0\n"
        "exit=0 job=101 array_job=100 task=1 shard=1 num_shards=2 node=n1 start=t0 end=t1 "
        "drained=0 restarts=0\n"
        "start job=101 array_job=100 task=1 shard=1 num_shards=2 node=n2 start=t2 restarts=1\n");
  auto e = read_shard_exit(dir_, "100_1");
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->ended);
  EXPECT_EQ(e->restarts, 1);
  EXPECT_EQ(e->node, "n2");
  EXPECT_EQ(e->start, "t2");
  // Attempt 2 ends by itself: its exit line completes its start line.
  std::ofstream(dir_ / "logs/100_1.exit", std::ios::app)
      << "exit=143 job=101 array_job=100 task=1 shard=1 num_shards=2 node=n2 start=t2 end=t3 "
         "drained=1 restarts=1\n"
      << "exit=1";  // a line cut short is ignored
  e = read_shard_exit(dir_, "100_1");
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->ended);
  EXPECT_EQ(e->restarts, 1);
  EXPECT_EQ(e->exit_code, 143);
  EXPECT_TRUE(e->drained);
  EXPECT_EQ(e->end, "t3");
}

// A shard of 12 points with 3 recorded, its element 100_0, and what its .exit file may say.
struct ShardWitnesses {
  ShardTally tally{0, 12, 3, 0, 0, 0, 9, "interrupted", {}, "", {}};
  std::optional<ShardElement> element = ShardElement{0, "100", 0};
  static JobState job(const std::string& state, int restarts = 0,
                      const std::string& reason = "None") {
    JobState j;
    j.state = state;
    j.reason = reason;
    j.exit_code = "0:0";
    j.node = "n1";
    j.restarts = restarts;
    return j;
  }
  static ShardExit exited(int code, int restarts = 0, bool drained = false) {
    ShardExit e;
    e.ended = true;
    e.exit_code = code;
    e.restarts = restarts;
    e.drained = drained;
    e.node = "n1";
    return e;
  }
  static ShardExit started(int restarts) {
    ShardExit e;
    e.restarts = restarts;
    e.node = "n2";
    return e;
  }
};

TEST(ShardState, SlurmsVerdictWinsOverAnExitLineOfSrun) {
  const ShardWitnesses w;
  // After a node failure srun returns 0 and the batch script writes exit=0 (Slurm 22.05).
  auto st = classify_shard(w.tally, w.element, w.job("NODE_FAIL"), w.exited(0));
  EXPECT_EQ(st.state, "killed");
  EXPECT_NE(st.note.find("node failure of n1"), std::string::npos) << st.note;
  for (const char* state : {"PREEMPTED", "BOOT_FAIL", "OUT_OF_MEMORY", "TIMEOUT", "DEADLINE"}) {
    st = classify_shard(w.tally, w.element, w.job(state), w.exited(143, 0, true));
    EXPECT_EQ(st.state, "killed") << state;
    EXPECT_EQ(st.note.find("runner exit"), std::string::npos) << state << ": " << st.note;
  }
  EXPECT_NE(
      classify_shard(w.tally, w.element, w.job("PREEMPTED"), std::nullopt).note.find("preempted"),
      std::string::npos);
  EXPECT_NE(
      classify_shard(w.tally, w.element, w.job("OUT_OF_MEMORY"), std::nullopt).note.find("--mem"),
      std::string::npos);
  // Without Slurm's word (the controller forgot the job): an exit 0 with points missing is srun's.
  st = classify_shard(w.tally, w.element, std::nullopt, w.exited(0));
  EXPECT_EQ(st.state, "killed");
  EXPECT_NE(st.note.find("srun returned 0 with points missing"), std::string::npos) << st.note;
  // The runner's own exit codes still count: 143 drained, 2 a config error.
  EXPECT_EQ(classify_shard(w.tally, w.element, w.job("FAILED"), w.exited(143, 0, true)).state,
            "interrupted");
  EXPECT_EQ(classify_shard(w.tally, w.element, w.job("FAILED"), w.exited(2)).state, "failed");
}

TEST(ShardState, RequeuedElementsAreToldApartFromTheirEarlierAttempts) {
  const ShardWitnesses w;
  // Requeued, waiting to start again: the exit line of attempt 1 is not about it.
  auto st =
      classify_shard(w.tally, w.element, w.job("PENDING", 1, "BeginTime"), w.exited(143, 0, true));
  EXPECT_EQ(st.state, "pending");
  EXPECT_EQ(st.note, "requeued 1x; BeginTime");
  st = classify_shard(w.tally, w.element, w.job("RUNNING", 1), w.started(1));
  EXPECT_EQ(st.state, "running");
  EXPECT_EQ(st.note, "requeued 1x, attempt 2");
  // Ended by Slurm's hand while attempt 2 had not written its exit line; the line of attempt 1
  // (exit 0 from srun) is ignored.
  st = classify_shard(w.tally, w.element, w.job("CANCELLED", 1), w.exited(0, 0));
  EXPECT_EQ(st.state, "killed");
  EXPECT_EQ(st.note.find("srun returned 0"), std::string::npos) << st.note;
  st = classify_shard(w.tally, w.element, w.job("CANCELLED", 1), w.started(1));
  EXPECT_EQ(st.state, "killed");
  EXPECT_NE(st.note.find("attempt 2 started on n2 and did not end by itself"), std::string::npos)
      << st.note;
  // Done after a requeue.
  ShardTally complete = w.tally;
  complete.ok = 12;
  complete.missing = 0;
  st = classify_shard(complete, w.element, w.job("COMPLETED", 1), w.exited(0, 1));
  EXPECT_EQ(st.state, "done");
  EXPECT_EQ(st.note, "requeued 1x, attempt 2");
}

TEST(ShardState, ShardsStoppedByRunnerCancelAreCancelledNotKilledOrMissing) {
  const ShardWitnesses w;
  const std::optional<std::string> at = "2026-01-01T00:00:00Z";
  // Running when cancelled: drained (CANCELLED 143), or killed outright (a start line only).
  auto st = classify_shard(w.tally, w.element, w.job("CANCELLED"), w.exited(143, 0, true), at);
  EXPECT_EQ(st.state, "cancelled");
  EXPECT_EQ(st.note,
            "runner cancel at 2026-01-01T00:00:00Z, drained, 3 records kept: resume to "
            "finish");
  EXPECT_EQ(classify_shard(w.tally, w.element, w.job("CANCELLED"), w.started(0), at).state,
            "cancelled");
  // Pending when cancelled: Slurm forgets the element, no records.
  ShardTally none = w.tally;
  none.ok = 0;
  none.missing = 12;
  none.state = "";
  st = classify_shard(none, w.element, std::nullopt, std::nullopt, at);
  EXPECT_EQ(st.state, "cancelled");
  EXPECT_NE(st.note.find("before its first record"), std::string::npos) << st.note;
  EXPECT_EQ(classify_shard(none, w.element, std::nullopt, std::nullopt).state, "missing");
  // Still on its way out, or done before the cancel reached it.
  EXPECT_EQ(classify_shard(w.tally, w.element, w.job("RUNNING"), std::nullopt, at).state,
            "running");
  ShardTally complete = w.tally;
  complete.ok = 12;
  complete.missing = 0;
  EXPECT_EQ(classify_shard(complete, w.element, w.job("CANCELLED"), w.exited(0), at).state, "done");
  EXPECT_EQ(missing_reason(w.tally, w.element, w.exited(143, 0, true), at),
            "cancelled: runner cancel at 2026-01-01T00:00:00Z, drained, 3 records kept");
}

TEST(ShardState, CollectReadsTheLatestAttemptFromFilesAlone) {
  const ShardWitnesses w;
  EXPECT_NE(missing_reason(w.tally, w.element, w.exited(0))
                .find("srun returned 0 with points "
                      "missing"),
            std::string::npos);
  EXPECT_EQ(missing_reason(w.tally, w.element, w.exited(0)).find("ended with exit 0"),
            std::string::npos);
  EXPECT_NE(missing_reason(w.tally, w.element, w.started(1))
                .find("started on n2 (attempt 2: requeued 1x) and did not end by itself"),
            std::string::npos)
      << missing_reason(w.tally, w.element, w.started(1));
  EXPECT_NE(missing_reason(w.tally, w.element, w.exited(143, 0, true)).find("drained"),
            std::string::npos);
  EXPECT_EQ(missing_reason(w.tally, w.element, w.exited(2)), "ended with exit 2");
  EXPECT_EQ(missing_reason(w.tally, std::nullopt, std::nullopt), "never submitted");
}

TEST(ShardIdentity, ReadFromShardManifests) {
  const auto current = shard_identity(nlohmann::json::parse(
      R"({"identity":{"config":"c1","build":"b1","device":"H100"},"fingerprint":"f"})"));
  ASSERT_TRUE(current);
  EXPECT_EQ(current->config, "c1");
  EXPECT_EQ(current->build, "b1");
  EXPECT_EQ(current->device, "H100");
  // An earlier release: the same parts, from config_text and the environment.
  const auto earlier = shard_identity(nlohmann::json::parse(
      R"({"config_text":"experiment: x\n","fingerprint":"f",)"
      R"("environment":{"git_revision":"b0","cpu_model":"EPYC","gpu":{"present":false}}})"));
  ASSERT_TRUE(earlier);
  EXPECT_EQ(earlier->config, identity_of("experiment: x\n").config);
  EXPECT_EQ(earlier->build, "b0");
  EXPECT_EQ(earlier->device, "EPYC");
  EXPECT_FALSE(earlier->from_fingerprint);
  const auto hashed = shard_identity(nlohmann::json::parse(R"({"fingerprint":"f00"})"));
  ASSERT_TRUE(hashed);
  EXPECT_TRUE(hashed->from_fingerprint);
  EXPECT_FALSE(shard_identity(nlohmann::json::parse(R"({"state":"running"})")));
}

TEST(ShardIdentity, CollectComparesConfigAndBuildNotDevice) {
  const std::string text = "experiment: x\n";
  const std::string config = identity_of(text).config;
  // Same config and build on two GPU models: not mixed, two devices.
  auto check = check_identities(
      {{0, {config, "b1", "H100"}}, {1, {config, "b1", "A100"}}, {2, {config, "b1", "H100"}}},
      text);
  EXPECT_FALSE(check.mixed());
  ASSERT_EQ(check.groups.size(), 1u);
  EXPECT_TRUE(check.groups[0].submitted_config);
  EXPECT_EQ(check.devices.size(), 2u);
  EXPECT_EQ(check.devices["H100"], (std::vector<int>{0, 2}));
  // Shard 1 ran another build: mixed, and the message names both groups.
  check = check_identities({{0, {config, "b1", "d"}}, {1, {config, "b2", "d"}}}, text);
  EXPECT_TRUE(check.mixed());
  EXPECT_NE(check.describe().find("shard 0: config"), std::string::npos) << check.describe();
  EXPECT_NE(check.describe().find("shard 1: config"), std::string::npos) << check.describe();
  EXPECT_NE(check.describe().find("build b2"), std::string::npos) << check.describe();
  ASSERT_EQ(check.to_json().size(), 2u);
  EXPECT_EQ(check.to_json()[1]["shards"].dump(), "[1]");
  // Every shard ran an edited config.yaml: one group, but not the submitted config.
  check = check_identities({{0, {"other", "b1", "d"}}, {1, {"other", "b1", "d"}}}, text);
  EXPECT_TRUE(check.mixed());
  EXPECT_NE(check.describe().find("shards 0-1: config other (not the submitted config"),
            std::string::npos)
      << check.describe();
  // Earlier releases' fingerprints cannot be compared with the config text: equal ones pass.
  ShardIdentity old{"f", "f", "", true};
  EXPECT_FALSE(check_identities({{0, old}, {1, old}}, text).mixed());
}

}  // namespace
}  // namespace runner::slurm
