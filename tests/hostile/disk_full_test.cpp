// A full disk stops a run with every record written so far intact (no line cut short), exit 3 and
// the resume command; once there is room, the resume completes the plan. On a small tmpfs (needs
// root to mount; skipped elsewhere), and under a file-size limit (anyone).
#include <sys/mount.h>

#include <cerrno>
#include <cstring>

#include <gtest/gtest.h>

#include "tests/hostile/hostile.hpp"

namespace runner::hostile {
namespace {

using namespace cli_testing;

// 120 quick points: their records (about 1.5 kB each, and the CSV rewritten after each) fill a
// small file system part-way through the run.
std::string many_points() {
  std::string yaml =
      "experiment: fills\nkernel: gemm\nrepeat: {warmup: 0, min_samples: 1, max_samples: 1}\n"
      "sweeps:\n  - {variant: [omp_serial, omp_naive], threads: 1, size: [";
  for (int s = 4; s < 64; ++s) yaml += (s > 4 ? ", " : "") + std::to_string(s);
  return yaml + "]}\n";
}

class SmallDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(mnt);
    if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=96k") != 0)
      GTEST_SKIP() << "cannot mount a tmpfs here (needs root): " << std::strerror(errno);
    mounted = true;
    write_text(config, many_points());
    plan = plan_of(config);
  }
  void TearDown() override {
    if (mounted) ::umount2(mnt.c_str(), MNT_DETACH);
  }
  void grow() {
    ASSERT_EQ(::mount("tmpfs", mnt.c_str(), "tmpfs", MS_REMOUNT, "size=16m"), 0)
        << std::strerror(errno);
  }

  TempDir dir;
  std::filesystem::path mnt = dir / "disk";
  std::filesystem::path config = dir / "config.yaml";
  std::filesystem::path out = mnt / "out";
  std::set<std::string> plan;
  bool mounted = false;
};

TEST_F(SmallDisk, FillingUpMidRunStopsWithEveryRecordIntactAndResumes) {
  const ProcessResult r = run({config.string(), "--out", out.string(), "-q"}, 120);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Make room, then resume with: runner"), std::string::npos) << r.err;
  const auto before = records_in(out / "records.jsonl");  // strict: no line cut short
  EXPECT_GT(before.size(), 0u);
  EXPECT_LT(before.size(), plan.size());
  for (const auto& rec : before) EXPECT_EQ(rec["status"], "ok");
  grow();
  const ProcessResult resumed =
      run({config.string(), "--out", out.string(), "--resume", "-q"}, 120);
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  expect_complete(out, plan);
  expect_kept(before, records_in(out / "records.jsonl"));
}

TEST_F(SmallDisk, AFullDiskAtTheStartIsFoundBeforeAnyPoint) {
  // Fill the file system first.
  write_text(mnt / "filler", std::string(95 * 1024, 'x'));
  const ProcessResult r = run({config.string(), "--out", out.string(), "-q"}, 60);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_EQ(records_in(out / "records.jsonl").size(), 0u);
  std::filesystem::remove(mnt / "filler");
  grow();
  const ProcessResult resumed =
      run({config.string(), "--out", out.string(), "--resume", "-q"}, 120);
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  expect_complete(out, plan);
}

TEST(FileSizeLimit, AWriteRefusedBySizeLimitStopsTheRunCleanly) {
  // ulimit -f: writes past the limit fail (EFBIG) instead of killing the runner with SIGXFSZ.
  TempDir dir;
  const auto config = dir / "config.yaml";
  write_text(config, many_points());
  const auto plan = plan_of(config);
  const auto out = dir / "out";
  // 64 blocks of 512 bytes: records.csv reaches it first, after some dozens of records.
  const ProcessResult r =
      run_process(under_shell_limit("-f 64", {config.string(), "--out", out.string(), "-q"}), 120);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  const auto before = records_in(out / "records.jsonl");
  EXPECT_GT(before.size(), 0u);
  const ProcessResult resumed =
      run({config.string(), "--out", out.string(), "--resume", "-q"}, 120);
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  expect_complete(out, plan);
  expect_kept(before, records_in(out / "records.jsonl"));
}

}  // namespace
}  // namespace runner::hostile
