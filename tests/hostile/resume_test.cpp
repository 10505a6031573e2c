// --resume against folders that met a crash, a hand or another run: it refuses what it cannot
// trust (exit 3, saying why, changing nothing), repairs what it can (saying how many records it
// left out, and keeping their text aside), and never loses a record.
#include <regex>
#include <sstream>

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
  static std::string read_text_if_any(const std::filesystem::path& file) {
    std::error_code ec;
    return std::filesystem::exists(file, ec) ? read_text(file) : "";
  }
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

// The points measured before, by their timestamps: a point measured again has a new one.
std::map<std::string, std::string> measured_at(const std::vector<nlohmann::json>& records) {
  std::map<std::string, std::string> at;
  for (const auto& r : records)
    if (r["status"] == "ok") at[r["point_id"]] = r["timestamp"];
  return at;
}

class LostRecordsFile : public Interrupted, public ::testing::WithParamInterface<std::string> {};

// What a crash leaves on some file systems (a file emptied, or gone), or a hand: the other file
// still holds every record, and the resume takes them back instead of measuring again (it used
// to start afresh and replace records.csv: every measurement gone).
TEST_P(LostRecordsFile, IsRecoveredFromTheOtherFile) {
  const std::string how = GetParam();
  const auto csv_before = parse_csv(read_text(out / "records.csv"));
  ASSERT_EQ(csv_before.rows.size(), before.size());
  if (how == "jsonl_emptied") write_text(out / "records.jsonl", "");
  if (how == "jsonl_deleted") std::filesystem::remove(out / "records.jsonl");
  if (how == "jsonl_half_gone")
    write_text(out / "records.jsonl", jsonl_text.substr(0, jsonl_text.find('\n') + 1));
  if (how == "csv_deleted") std::filesystem::remove(out / "records.csv");
  const ProcessResult r = resume();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (how != "csv_deleted") {
    const std::size_t lost = how == "jsonl_half_gone" ? before.size() - 1 : before.size();
    EXPECT_NE(r.err.find("recovered " + std::to_string(lost) + " record(s) from " +
                         (out / "records.csv").string()),
              std::string::npos)
        << r.err;
  }
  EXPECT_NE(r.err.find("resuming: " + std::to_string(before.size()) + " points already ok"),
            std::string::npos)
      << r.err;
  expect_complete(out, plan);
  // Not measured again: the same records (timestamps, statuses, times to the CSV's digits).
  const auto after = records_in(out / "records.jsonl");
  const auto then = measured_at(before), now = measured_at(after);
  for (const auto& [id, at] : then) EXPECT_EQ(now.at(id), at) << id << " was measured again";
  for (const auto& rec : before) {
    const auto it = std::find_if(after.begin(), after.end(),
                                 [&](const auto& a) { return a["point_id"] == rec["point_id"]; });
    ASSERT_NE(it, after.end());
    EXPECT_NEAR((*it)["time_ms_median"].get<double>(), rec["time_ms_median"].get<double>(),
                1e-8 * rec["time_ms_median"].get<double>());
  }
}

INSTANTIATE_TEST_SUITE_P(Hostile, LostRecordsFile,
                         ::testing::Values("jsonl_emptied", "jsonl_deleted", "jsonl_half_gone",
                                           "csv_deleted"));

class DiscardedMeasurements : public Interrupted,
                              public ::testing::WithParamInterface<std::string> {};

// Both files gone or cut down while the manifest counted more records: a resume would measure
// those points again and their measurements would be gone. Refused, saying what it found.
TEST_P(DiscardedMeasurements, AreRefusedUnlessForced) {
  const std::string how = GetParam();
  const std::string manifest_text = read_text(out / "manifest.json");
  if (how == "both_deleted") {
    std::filesystem::remove(out / "records.jsonl");
    std::filesystem::remove(out / "records.csv");
  } else if (how == "both_emptied") {
    write_text(out / "records.jsonl", "");
    write_text(out / "records.csv", "");
  } else {  // the first records cut out of both files by hand
    const auto rest = jsonl_text.substr(jsonl_text.find('\n') + 1);
    write_text(out / "records.jsonl", rest);
    std::string csv = read_text(out / "records.csv");
    const auto header_end = csv.find("\r\n") + 2;
    csv.erase(header_end, csv.find("\r\n", header_end) + 2 - header_end);
    write_text(out / "records.csv", csv);
  }
  const std::string jsonl_now = read_text_if_any(out / "records.jsonl");
  const ProcessResult r = resume();
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const std::size_t left = how == "first_cut_out" ? before.size() - 1 : 0;
  EXPECT_NE(
      r.err.find("manifest.json says the run has " + std::to_string(before.size()) +
                 " record(s) (" + std::to_string(before.size()) +
                 " ok), but the record files hold " + std::to_string(left) + " of its points"),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(how == "both_deleted"   ? "records.jsonl is gone, records.csv is gone"
                       : how == "both_emptied" ? "records.jsonl holds 0, records.csv holds 0 more"
                                               : "records.jsonl holds " + std::to_string(left) +
                                                     ", records.csv holds 0 more"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(read_text(out / "manifest.json"), manifest_text) << "a refused resume changed it";
  EXPECT_EQ(read_text_if_any(out / "records.jsonl"), jsonl_now);
  const ProcessResult forced = resume({"--force-mix"});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  expect_complete(out, plan);
}

INSTANTIATE_TEST_SUITE_P(Hostile, DiscardedMeasurements,
                         ::testing::Values("both_deleted", "both_emptied", "first_cut_out"));

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

// Peak memory (KiB) and seconds of `runner ARGS...`, from /usr/bin/time.
// The peak resident memory of a run and the CPU time it used (user + system, its worker's too):
// the CPU time, not the wall time, because the suite runs beside other tests (`ctest -j`) whose
// load comes and goes between the two runs compared (a resume of 13.7 s on a quiet machine took
// 101 s of wall time beside three busy processes on two cores, where its run had taken 25 s).
std::pair<long, double> peak_kib_and_cpu_seconds(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/usr/bin/time", "-f", "peak %M %U %S"};
  for (const auto& a : run_argv(args)) argv.push_back(a);
  const ProcessResult r = run_process(argv, 300);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto at = r.err.rfind("peak ");
  if (at == std::string::npos) return {0, 0};
  std::istringstream in(r.err.substr(at + 5));
  long kib = 0;
  double user = 0, system = 0;
  in >> kib >> user >> system;
  return {kib, user + system};
}

TEST(Resume, OfAHundredThousandPointsCostsNoMoreThanTheRun) {
  // It took 3.2 GB and 110 s where the run took 0.8 GB and 47 s: four copies of the records.
  if (!std::filesystem::exists("/usr/bin/time")) GTEST_SKIP() << "no /usr/bin/time";
  TempDir dir;
  write_text(dir / "config.yaml",
             "experiment: large\nkernel: hello\nrepeat: {warmup: 0, min_samples: 1, "
             "max_samples: 1}\nsweeps:\n  - {variant: hello, grid: {range: [1, 100000]}}\n");
  const auto out = dir / "out";
  const auto [run_kib, run_s] =
      peak_kib_and_cpu_seconds({(dir / "config.yaml").string(), "--out", out.string(), "-q"});
  // Without a GPU every point is skipped, and a resume would measure them all again: as ok
  // records they are what a resume of a finished run reads, keeps and writes back.
  for (const char* name : {"records.jsonl", "records.csv"}) {
    std::string text = read_text(out / name);
    text = std::regex_replace(text, std::regex(R"("status":"skipped")"), R"("status":"ok")");
    text = std::regex_replace(text, std::regex(",skipped,"), ",ok,");
    write_text(out / name, text);
  }
  const auto [resume_kib, resume_s] = peak_kib_and_cpu_seconds(
      {(dir / "config.yaml").string(), "--out", out.string(), "--resume", "-q"});
  std::printf("100 000 points: run %.2f GB %.1f CPU s, resume %.2f GB %.1f CPU s\n",
              run_kib / 1048576.0, run_s, resume_kib / 1048576.0, resume_s);
  EXPECT_LT(resume_kib, run_kib * 3 / 2) << "the resume held the records several times";
  EXPECT_GT(run_s, 0.0) << "no CPU time read";
  EXPECT_LT(resume_s, run_s * 1.5 + 2) << "the resume cost more CPU time than the run";
  EXPECT_EQ(records_in(out / "records.jsonl").size(), 100000u);
}

}  // namespace
}  // namespace runner::hostile
