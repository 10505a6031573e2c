// --resume against folders that met a crash, a hand or another run: it refuses what it cannot
// trust (exit 3, saying why, changing nothing), repairs what it can (saying how many records it
// left out, and keeping their text aside), and never loses a record.
#include <regex>

#include <gtest/gtest.h>

#include "tests/hostile/hostile.hpp"

namespace runner::hostile {
namespace {

using namespace cli_testing;

// A run of kInterruptible stopped by SIGTERM after a few records.
class Interrupted : public ::testing::Test {
 protected:
  void SetUp() override {
    write_text(config, kInterruptible);
    plan = plan_of(config);
    ChildProcess child(run_argv({config.string(), "--out", out.string(), "-q"}), dir.path());
    ASSERT_TRUE(wait_for_records(out / "records.jsonl", 4, child));
    child.signal(SIGTERM);
    ASSERT_EQ(child.wait(30).exit_code, 143);
    before = records_in(out / "records.jsonl");
    ASSERT_GE(before.size(), 4u);
    ASSERT_LT(before.size(), plan.size());
    jsonl_text = read_text(out / "records.jsonl");
  }
  ProcessResult resume(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {config.string(), "--out", out.string(), "--resume", "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  }
  void expect_refused(const ProcessResult& r, const std::string& why) {
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
    EXPECT_EQ(read_text(out / "records.jsonl"), jsonl_text) << "a refused resume changed records";
  }
  void expect_completed(const ProcessResult& r) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    expect_complete(out, plan);
    expect_kept(before, records_in(out / "records.jsonl"));
  }
  nlohmann::json manifest() { return read_json(out / "manifest.json"); }
  void set_manifest(const nlohmann::json& doc) { write_text(out / "manifest.json", doc.dump(2)); }
  std::string dropped() {
    std::error_code ec;
    return std::filesystem::exists(out / "records.jsonl.dropped", ec)
               ? read_text(out / "records.jsonl.dropped")
               : "";
  }

  TempDir dir;
  std::filesystem::path config = dir / "config.yaml";
  std::filesystem::path out = dir / "out";
  std::set<std::string> plan;
  std::vector<nlohmann::json> before;
  std::string jsonl_text;
};

TEST_F(Interrupted, ResumesToExactlyThePlan) {
  const ProcessResult r = resume();
  EXPECT_NE(r.err.find("resuming: " + std::to_string(before.size()) + " points already ok, " +
                       std::to_string(plan.size() - before.size()) + " to run"),
            std::string::npos)
      << r.err;
  expect_completed(r);
}

TEST_F(Interrupted, AMissingManifestIsRefusedUnlessForced) {
  std::filesystem::remove(out / "manifest.json");
  expect_refused(resume(), "manifest.json: it is missing, so nothing says which config");
  expect_completed(resume({"--force-mix"}));
}

class BrokenManifest : public Interrupted, public ::testing::WithParamInterface<std::string> {};

TEST_P(BrokenManifest, IsRefused) {
  const std::string text = read_text(out / "manifest.json");
  const std::string how = GetParam();
  if (how == "truncated")
    write_text(out / "manifest.json", text.substr(0, text.size() / 2));
  else if (how == "empty")
    write_text(out / "manifest.json", "");
  else if (how == "array")
    write_text(out / "manifest.json", "[1, 2, 3]\n");
  else if (how == "binary")
    write_text(out / "manifest.json", std::string("\0\1\2\xff", 4));
  expect_refused(resume(), how == "array" ? "it is not a JSON object" : "it cannot be read");
}

INSTANTIATE_TEST_SUITE_P(Hostile, BrokenManifest,
                         ::testing::Values("truncated", "empty", "array", "binary"));

TEST_F(Interrupted, AnEditedConfigIsRefused) {
  write_text(config, std::string(kInterruptible) + "# one more line\n");
  expect_refused(resume(), "the config text differs from " + config.string());
}

TEST_F(Interrupted, RecordsOfAnotherBuildAreRefused) {
  nlohmann::json doc = manifest();
  doc["identity"]["build"] = "0123456789ab";
  set_manifest(doc);
  expect_refused(resume(), "the records were made by 0123456789ab");
}

TEST_F(Interrupted, RecordsOfAnotherDeviceAreRefused) {
  nlohmann::json doc = manifest();
  doc["identity"]["device"] = "Some Other CPU";
  set_manifest(doc);
  expect_refused(resume(), "the records were measured on Some Other CPU");
  expect_completed(resume({"--force-mix"}));
}

TEST_F(Interrupted, AManifestOfAnEarlierReleaseIsComparedByItsFingerprint) {
  nlohmann::json doc = manifest();
  doc.erase("identity");
  set_manifest(doc);
  expect_completed(resume());
}

TEST_F(Interrupted, AnEarlierReleasesManifestOfAnotherRunIsRefused) {
  nlohmann::json doc = manifest();
  doc.erase("identity");
  doc["fingerprint"] = "0000000000000000";
  set_manifest(doc);
  expect_refused(resume(), "was written by another config, build or device (fingerprint");
}

TEST_F(Interrupted, RepeatedRecordsAreLeftOutAndCounted) {
  // Every line twice (a file appended to itself): the count must not underflow, no point may
  // be recorded twice, and the repeats are kept aside.
  write_text(out / "records.jsonl", jsonl_text + jsonl_text);
  const ProcessResult r = resume();
  EXPECT_NE(r.err.find("left out " + std::to_string(before.size()) + " repeated record(s), 0"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(std::to_string(plan.size() - before.size()) + " to run"), std::string::npos)
      << r.err;
  expect_completed(r);
  EXPECT_EQ(count_of(dropped(), "\"point_id\""), before.size());
}

TEST_F(Interrupted, RecordsOfAnotherRunAreLeftOutAndCounted) {
  // Records of a run of another config pasted into the file.
  TempDir other;
  write_text(other / "c.yaml", kQuick);
  ASSERT_EQ(run({(other / "c.yaml").string(), "--out", (other / "o").string(), "-q"}).exit_code, 0);
  write_text(out / "records.jsonl", jsonl_text + read_text(other / "o" / "records.jsonl"));
  const ProcessResult r = resume();
  EXPECT_NE(r.err.find(std::to_string(kQuickPoints) + " record(s) of points not in this run"),
            std::string::npos)
      << r.err;
  expect_completed(r);
  EXPECT_EQ(count_of(dropped(), "\"experiment\":\"quick\""), kQuickPoints);
}

class DamagedLine : public Interrupted, public ::testing::WithParamInterface<std::string> {};

TEST_P(DamagedLine, IsLeftOutAndTheRestKept) {
  const std::string how = GetParam();
  const auto first_nl = jsonl_text.find('\n');
  std::string text = jsonl_text;
  std::string warning = "dropped an unreadable line";
  if (how == "garbage")
    text.insert(first_nl + 1, "this is not json\n");
  else if (how == "nul_bytes")
    text.insert(first_nl + 1, std::string("{\"a\":\0\0\0}\n", 10));
  else if (how == "zero_filled_block") {
    // A crash can leave a block of NULs where data was meant to go: the record after it counts.
    text.insert(first_nl + 1, std::string(4096, '\0'));
    warning = "resuming: " + std::to_string(before.size()) + " points already ok";
  } else if (how == "half_record")
    text.insert(first_nl + 1, jsonl_text.substr(0, first_nl / 2) + "\n");
  else if (how == "not_an_object")
    text.insert(first_nl + 1, "[\"p0123456789abcdef\"]\n");
  else if (how == "truncated_tail") {
    text += jsonl_text.substr(0, first_nl / 2);
    warning = "dropped a truncated last record";
  } else if (how == "no_point_id") {
    text.insert(first_nl + 1, "{\"status\":\"ok\"}\n");
    warning = "1 record(s) of points not in this run";
  } else if (how == "numeric_point_id") {
    text.insert(first_nl + 1, "{\"point_id\":5771271885670859,\"status\":\"ok\"}\n");
    warning = "dropped an unreadable line: its point_id is not text";
  }
  write_text(out / "records.jsonl", text);
  const ProcessResult r = resume();
  EXPECT_NE(r.err.find(warning), std::string::npos) << r.err;
  expect_completed(r);
  if (how != "zero_filled_block") {
    EXPECT_NE(dropped(), "") << "the damaged line's text was not kept aside";
  }
}

INSTANTIATE_TEST_SUITE_P(Hostile, DamagedLine,
                         ::testing::Values("garbage", "nul_bytes", "zero_filled_block",
                                           "half_record", "not_an_object", "truncated_tail",
                                           "no_point_id", "numeric_point_id"));

TEST_F(Interrupted, CrlfLineEndsAreRead) {
  std::string text;
  for (char c : jsonl_text) text += c == '\n' ? std::string("\r\n") : std::string(1, c);
  write_text(out / "records.jsonl", text);
  const ProcessResult r = resume();
  EXPECT_NE(r.err.find("resuming: " + std::to_string(before.size()) + " points already ok"),
            std::string::npos)
      << r.err;
  expect_completed(r);
}

TEST_F(Interrupted, IdsOfAnEarlierReleaseAreRecognised) {
  // Records written before ids had their "p": the points are still done.
  write_text(out / "records.jsonl",
             std::regex_replace(jsonl_text, std::regex("\"point_id\":\"p([0-9a-f]{16})\""),
                                "\"point_id\":\"$1\""));
  const ProcessResult r = resume();
  EXPECT_NE(r.err.find("resuming: " + std::to_string(before.size()) + " points already ok"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_complete(out, plan);
}

TEST_F(Interrupted, AnEmptyRecordsFileRunsEverything) {
  write_text(out / "records.jsonl", "");
  const ProcessResult r = resume();
  EXPECT_NE(r.err.find("0 points already ok, " + std::to_string(plan.size()) + " to run"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_complete(out, plan);
}

TEST_F(Interrupted, ARecordsFileThatIsAFolderIsRefused) {
  std::filesystem::remove(out / "records.jsonl");
  std::filesystem::create_directories(out / "records.jsonl");
  const ProcessResult r = resume();
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("records.jsonl: is a folder, not a records file"), std::string::npos)
      << r.err;
}

TEST_F(Interrupted, ResumingAFinishedRunRunsNothingAndChangesNoRecord) {
  ASSERT_EQ(resume().exit_code, 0);
  const std::string finished = read_text(out / "records.jsonl");
  const ProcessResult again = resume();
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find(std::to_string(plan.size()) + " points already ok, 0 to run"),
            std::string::npos)
      << again.err;
  EXPECT_EQ(read_text(out / "records.jsonl"), finished);
}

TEST(Resume, AnInterruptedResumeKeepsTheFailedRecordsItHadNotRetriedYet) {
  // First run: ok, failed (abort), failed (timeout). The resume retries the abort (fails again)
  // and is stopped while the hang is retried: the hang's earlier failed record must survive.
  TempDir dir;
  const auto config = dir / "config.yaml";
  write_text(config, R"(experiment: fails
kernel: fault
timeout_s: 3
repeat: {warmup: 0, min_samples: 1, max_samples: 1}
sweeps:
  - variant: [host_ok, host_abort, host_hang]
)");
  const SpawnOptions faults = with_faults();
  const auto out = dir / "out";
  ASSERT_EQ(run({config.string(), "--out", out.string(), "-q"}, 60, faults).exit_code, 1);
  const auto first = records_in(out / "records.jsonl");
  ASSERT_EQ(first.size(), 3u);
  {
    ChildProcess child(run_argv({config.string(), "--out", out.string(), "--resume", "-q"}, faults),
                       dir.path(), faults);
    // Three lines after the rewrite, the retried abort makes a fourth.
    ASSERT_TRUE(wait_for_records(out / "records.jsonl", 4, child));
    child.signal(SIGTERM);
    EXPECT_EQ(child.wait(30).exit_code, 143);
  }
  const auto after = records_in(out / "records.jsonl");
  ASSERT_EQ(after.size(), 3u) << "a record was lost or a point recorded twice";
  std::map<std::string, std::string> status;
  for (const auto& r : after) status[r["variant"]] = r["status"];
  EXPECT_EQ(status["host_ok"], "ok");
  EXPECT_EQ(status["host_abort"], "failed");
  EXPECT_EQ(status["host_hang"], "failed");
  expect_kept(first, after);
}

TEST(Resume, AShardDropsRecordsOfOtherShards) {
  TempDir dir;
  const auto config = dir / "config.yaml";
  write_text(config, kQuick);
  const auto out = dir / "out";
  ASSERT_EQ(run({config.string(), "--out", out.string(), "--shard", "0/2", "-q"}).exit_code, 0);
  const auto shard0 = records_in(out / "shards" / "0.jsonl");
  std::filesystem::copy_file(out / "shards" / "0.jsonl", out / "shards" / "1.jsonl");
  std::filesystem::copy_file(out / "shards" / "0.manifest.json",
                             out / "shards" / "1.manifest.json");
  const ProcessResult r =
      run({config.string(), "--out", out.string(), "--shard", "1/2", "--resume", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(std::to_string(shard0.size()) + " record(s) of points not in this run"),
            std::string::npos)
      << r.err;
  const auto shard1 = records_in(out / "shards" / "1.jsonl");
  EXPECT_EQ(shard0.size() + shard1.size(), kQuickPoints);
  for (const auto& rec : shard1) EXPECT_EQ(ids_of(shard0).count(rec["point_id"]), 0u);
  EXPECT_EQ(records_in(out / "shards" / "0.jsonl"), shard0) << "shard 0 was touched";
}

}  // namespace
}  // namespace runner::hostile
