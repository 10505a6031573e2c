// What --resume keeps of a folder, and when it refuses: runner/run/resume.hpp.
#include <gtest/gtest.h>

#include "runner/base/errors.hpp"
#include "runner/run/resume.hpp"
#include "tests/unit/temp_dir.hpp"

namespace runner {
namespace {

using testing::TempDir;
using testing::write_file;

Point point(int size) {
  Point p;
  p.kernel = "gemm";
  p.variant = "omp_serial";
  p.size = ProblemSize{size, size, size};
  return p;
}

Record record_of(const Point& p, const char* status, int serial = 0) {
  Record r;
  r["point_id"] = p.id();
  r["status"] = status;
  r["serial"] = serial;
  return r;
}

TEST(KeepForResume, OneRecordPerPlannedPointTheLatestOkWinning) {
  const std::vector<Point> plan = {point(8), point(16), point(24)};
  Record foreign;
  foreign["point_id"] = "p00000000000000ff";
  foreign["status"] = "ok";
  const KeptRecords kept =
      keep_for_resume({record_of(plan[0], "ok", 1), record_of(plan[1], "failed", 2), foreign,
                       record_of(plan[0], "ok", 3),       // a repeated line: the later ok wins
                       record_of(plan[1], "skipped", 4),  // not ok after not ok: the later wins
                       record_of(plan[0], "failed", 5)},  // never replaces an ok record
                      plan);
  ASSERT_EQ(kept.records.size(), 2u);
  EXPECT_EQ(kept.records[0]["serial"], 3);
  EXPECT_EQ(kept.records[1]["serial"], 4);
  EXPECT_EQ(kept.duplicates, 3u);
  EXPECT_EQ(kept.foreign, 1u);
  EXPECT_EQ(kept.done, (std::set<std::string>{plan[0].id()}));
}

class CheckResume : public ::testing::Test {
 protected:
  void write_manifest(const nlohmann::json& doc) { write_file(manifest(), doc.dump()); }
  std::filesystem::path manifest() const { return dir / "manifest.json"; }
  RunIdentity here(const std::string& device = "") {
    RunIdentity id = identity_of("experiment: e\n");
    id.device = device;
    return id;
  }
  std::string refusal(const RunIdentity& id, bool records = true, bool force_mix = false) {
    try {
      check_resume_compatible(manifest(), id, records, force_mix);
    } catch (const Refused& e) {
      return e.what();
    }
    return "";
  }
  TempDir dir;
};

TEST_F(CheckResume, NoManifestButRecordsIsRefusedUnlessForced) {
  EXPECT_NE(refusal(here()).find("manifest.json: it is missing, so nothing says which config"),
            std::string::npos)
      << refusal(here());
  EXPECT_EQ(refusal(here(), /*records=*/false), "");
  EXPECT_EQ(refusal(here(), true, /*force_mix=*/true), "");
  write_file(manifest(), "{\"experiment\": \"e\", \"poi");  // cut short
  EXPECT_NE(refusal(here()).find("it cannot be read"), std::string::npos) << refusal(here());
}

TEST_F(CheckResume, SaysWhichPartDiffers) {
  RunIdentity there = here("H100");
  write_manifest({{"identity", there.to_json()}, {"config_file", "configs/a.yaml"}});
  EXPECT_EQ(refusal(here("H100")), "");
  EXPECT_EQ(refusal(here()), "");  // the device is compared once a worker reported it
  EXPECT_NE(refusal(here("A100")).find("the device is A100, the records were measured on H100"),
            std::string::npos);
  RunIdentity edited = identity_of("experiment: e2\n");
  edited.device = "H100";
  EXPECT_NE(refusal(edited).find("the config text differs from configs/a.yaml"), std::string::npos);
  RunIdentity rebuilt = here("H100");
  rebuilt.build = "0123abc";
  EXPECT_NE(refusal(rebuilt).find("the runner is revision 0123abc"), std::string::npos);
  EXPECT_EQ(refusal(rebuilt, true, /*force_mix=*/true), "");
}

TEST_F(CheckResume, ManifestsOfEarlierReleasesCompareTheirFingerprint) {
  write_manifest({{"fingerprint", here("H100").fingerprint()}});
  EXPECT_EQ(refusal(here("H100")), "");
  EXPECT_NE(refusal(here("A100")).find("fingerprint"), std::string::npos);
}

TEST_F(CheckResume, AFolderOfASubmittedRunIsResumedWithSubmit) {
  write_manifest({{"slurm", {{"num_shards", 2}}}, {"points", nlohmann::json::array()}});
  EXPECT_NE(refusal(here()).find("runner submit --resume"), std::string::npos);
  // Once collected it has a fingerprint (from its shards): still not a local run's folder.
  write_manifest({{"slurm", {{"num_shards", 2}}},
                  {"points", nlohmann::json::array()},
                  {"fingerprint", here("H100").fingerprint()}});
  EXPECT_NE(refusal(here("H100")).find("runner submit --resume"), std::string::npos);
  EXPECT_NE(refusal(here("H100"), true, /*force_mix=*/true).find("runner submit --resume"),
            std::string::npos);
}

}  // namespace
}  // namespace runner
