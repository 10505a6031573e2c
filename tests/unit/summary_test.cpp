// The summary a run prints at its end: bounded however many points the run had.
#include <cstdio>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "runner/results/columns.hpp"
#include "runner/results/summary.hpp"

namespace runner {
namespace {

Record ok_record(int size, double ms) {
  Record r;
  r["point_id"] = "p" + std::to_string(size);
  r["kernel"] = "transpose";
  r["variant"] = "omp_naive";
  r["backend"] = "cpu";
  r["dtype"] = "float";
  r["m"] = size;
  r["n"] = size;
  r["status"] = "ok";
  r["time_ms_median"] = ms;
  r["point_s"] = 0.001;
  r["timed_s"] = 0.0005;
  r["setup_s"] = 0.0002;
  r["verify_s"] = 0.0001;
  return canonical_record(r, UnknownFields::refuse);
}

std::string summary_of(const std::vector<Record>& records, std::size_t planned) {
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  print_summary(records, planned, out, 2.0);
  std::fclose(out);
  std::string s(text, size);
  std::free(text);
  return s;
}

std::size_t lines_with(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1))
    ++n;
  return n;
}

TEST(Summary, ATableOfManyProblemsIsCutAndSaysHowManyItLeftOut) {
  std::vector<Record> records;
  for (int i = 1; i <= 100; ++i) records.push_back(ok_record(i, 0.01 * i));
  const std::string s = summary_of(records, 100);
  EXPECT_EQ(lines_with(s, "transpose  float"), 40u) << s;
  EXPECT_NE(s.find("... and 60 more problems"), std::string::npos) << s;
  EXPECT_NE(s.find("100 of 100 points recorded: 100 ok"), std::string::npos) << s;
  // 100 points: 0.1 s in points, 0.05 timed, 0.02 set-up, 0.01 verification, 0.02 the rest;
  // 1.9 s of the 2.0 s wall outside the points.
  EXPECT_NE(s.find("Time: 2.0 s wall, 0.1 s in points: "), std::string::npos) << s;
  EXPECT_NE(s.find("1.9 s outside points (calibration, worker starts, files): 40.00 x the timed"),
            std::string::npos)
      << s;
}

TEST(Summary, TheTimeLineSplitsThePointsTime) {
  std::vector<Record> records;
  Record r = ok_record(8, 1);
  r["point_s"] = 10.0;
  r["timed_s"] = 4.0;
  r["setup_s"] = 3.0;
  r["verify_s"] = 2.0;
  records.push_back(r);
  const std::string s = summary_of(records, 1);
  EXPECT_NE(s.find("10.0 s in points: 4.0 s timed (samples), 3.0 s set-up (problems, inputs, "
                   "buffers), 2.0 s verification (references, comparisons), 1.0 s warm-ups"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find(": 0.50 x the timed time"), std::string::npos) << s;  // 2.0 s wall / 4.0 timed
}

TEST(Summary, SeveralGpusAtOnceCountTheBusiestAndSayEachOnesShare) {
  // CPU points (0.5 s) before the GPUs' (GPU 0: 3 s, GPU 1: 4 s, at once): of the 6.0 s wall,
  // 4.5 s in points, 1.5 s outside; the 7.5 s summed over the points is not the wall's share.
  std::vector<Record> records;
  auto add = [&](int size, double point_s, std::optional<int> gpu) {
    Record r = ok_record(size, 1);
    r["point_s"] = point_s;
    r["timed_s"] = point_s / 2;
    if (gpu) {
      r["backend"] = "cuda";
      r["gpu_index"] = *gpu;
    }
    records.push_back(canonical_record(r, UnknownFields::refuse));
  };
  add(8, 0.5, std::nullopt);
  add(16, 1.0, 0);
  add(32, 2.0, 0);
  add(64, 4.0, 1);
  PointTimes times;
  for (const auto& r : records) times.add(r);
  const auto summary = [&](double wall_s) {
    char* text = nullptr;
    std::size_t size = 0;
    std::FILE* out = open_memstream(&text, &size);
    print_summary(records, records.size(), out, wall_s, &times);
    std::fclose(out);
    std::string s(text, size);
    std::free(text);
    return s;
  };
  const std::string s = summary(6.0);
  EXPECT_NE(s.find("Time: 6.0 s wall, 7.5 s in points: "), std::string::npos) << s;
  EXPECT_NE(s.find("; 1.5 s outside points (calibration, worker starts, files)\n"),
            std::string::npos)
      << s;
  EXPECT_EQ(s.find("x the timed time"), std::string::npos) << "samples of 2 GPUs summed: " << s;
  EXPECT_NE(s.find("Devices: CPU worker 1 point, 0.5 s; GPU 0 2 points, 3.0 s; GPU 1 1 point, "
                   "4.0 s; the GPUs at once, so the points took 4.5 s of the wall time (the "
                   "busiest, GPU 1, after the CPU worker's)"),
            std::string::npos)
      << s;
  // Without a wall time (shards merged from several nodes) the shares are not compared.
  EXPECT_EQ(summary(0).find("Devices:"), std::string::npos) << summary(0);
}

TEST(Summary, AFewProblemsAreAllShown) {
  const std::string s = summary_of({ok_record(8, 0.1), ok_record(16, 0.2)}, 3);
  EXPECT_EQ(lines_with(s, "transpose  float"), 2u) << s;
  EXPECT_EQ(s.find("more problems"), std::string::npos) << s;
  EXPECT_NE(s.find("2 of 3 points recorded"), std::string::npos) << s;
}

TEST(Summary, ManyCausesOfFailureAreCut) {
  std::vector<Record> records;
  for (int i = 0; i < 50; ++i) {
    Record r = ok_record(i, 1);
    r["status"] = "failed";
    r["message"] = "cause " + std::to_string(i);
    records.push_back(r);
  }
  const std::string s = summary_of(records, 50);
  EXPECT_EQ(lines_with(s, "  failed omp_naive: cause "), 40u) << s;
  EXPECT_NE(s.find("... and 10 more causes"), std::string::npos) << s;
}

TEST(Summary, NoisyPointsAreMarkedInTheTableAndCountedUnderIt) {
  Record quiet = ok_record(8, 0.1);
  quiet["time_ms_rsd"] = 0.004;
  Record noisy = ok_record(16, 0.2);
  noisy["time_ms_rsd"] = 1.95;
  noisy["noise_warning"] = "rsd 195 % > target 2 % after 20 samples";
  noisy["point_key"] = "transpose/omp_naive dtype=float size=16x16 threads=2";
  Record noisier_but_slower = ok_record(16, 0.3);  // not the fastest: not in the table
  noisier_but_slower["point_id"] = "p16b";
  noisier_but_slower["time_ms_rsd"] = 2.5;
  noisier_but_slower["noise_warning"] = "rsd 250 % > target 2 % after 20 samples";
  noisier_but_slower["point_key"] = "transpose/omp_naive dtype=float size=16x16 threads=1";
  const std::string s = summary_of({quiet, noisy, noisier_but_slower}, 3);
  // the row of the noisy point carries the marker and its spread, the quiet row does not
  const auto row = [&](const std::string& size) {
    const auto at = s.find("transpose  float   " + size);
    return at == std::string::npos ? std::string() : s.substr(at, s.find('\n', at) - at);
  };
  EXPECT_NE(row("16x16").find("! rsd 195 %"), std::string::npos) << s;
  EXPECT_EQ(row("8x8").find('!'), std::string::npos) << s;
  EXPECT_NE(s.find("Noise: 2 of 3 ok points did not settle"), std::string::npos) << s;
  EXPECT_NE(s.find("the worst at rsd 250 %: transpose/omp_naive dtype=float size=16x16 threads=1"),
            std::string::npos)
      << s;
}

TEST(Summary, AQuietRunHasNoNoiseLine) {
  const std::string s = summary_of({ok_record(8, 0.1)}, 1);
  EXPECT_EQ(s.find("Noise:"), std::string::npos) << s;
  EXPECT_EQ(s.find('!'), std::string::npos) << s;
}

// A resumed run: its wall time is this invocation's, so the time split covers the points it ran,
// not those a resume kept from an earlier one (whose seconds would make the ratio meaningless).
TEST(Summary, AResumedRunSplitsOnlyTheTimeOfThePointsItRan) {
  std::vector<Record> all;
  for (int i = 1; i <= 10; ++i) {
    Record r = ok_record(i, 1);
    r["point_s"] = 50.0;  // earlier points: 50 s each
    r["timed_s"] = 40.0;
    all.push_back(r);
  }
  PointTimes session;
  for (int i = 11; i <= 12; ++i) {
    Record r = ok_record(i, 1);
    r["point_s"] = 0.5;
    r["timed_s"] = 0.4;
    all.push_back(r);
    session.add(r);
  }
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  print_summary(all, 12, out, 2.0, &session);
  std::fclose(out);
  const std::string s(text, size);
  std::free(text);
  EXPECT_NE(s.find("12 of 12 points recorded: 12 ok"), std::string::npos) << s;
  EXPECT_NE(s.find("Time of the 2 points run now (10 kept from before): 2.0 s wall, 1.0 s in "
                   "points: 0.8 s timed"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("1.0 s outside points (calibration, worker starts, files): 2.50 x the timed"),
            std::string::npos)
      << s;
}

}  // namespace
}  // namespace runner
