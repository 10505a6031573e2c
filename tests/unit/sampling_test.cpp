// StoppingRule and measure(): how many samples a point gets, and the order of poison, run, verify.
// The modes (cold, hot batches) are in measure_test.cpp.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runner/measure/sampling.hpp"
#include "tests/unit/scripted_measure.hpp"

namespace runner {
namespace {

// min_seconds is 0 here: its tests are in measure_test.cpp.
SamplingRule rule(int min_samples, int max_samples, double target_rsd, double max_seconds,
                  int warmup = 2) {
  SamplingRule r;
  r.warmup = warmup;
  r.min_samples = min_samples;
  r.max_samples = max_samples;
  r.target_rsd = target_rsd;
  r.min_seconds = 0;
  r.max_seconds = max_seconds;
  return r;
}

// Progress after `samples`, `wall_s` seconds into sampling.
SamplingProgress at(const std::vector<double>& samples, double wall_s) {
  return SamplingProgress{samples, 1e-3 * static_cast<double>(samples.size()), wall_s};
}

const std::vector<double> kSteady(5, 1.0);
const std::vector<double> kNoisy = {1.0, 2.0, 1.0, 2.0, 1.0};  // rsd ≈ 0.39
const std::vector<double> kFourSteady(4, 1.0);

TEST(StoppingRule, NeverBeforeMinSamples) {
  const StoppingRule stop(rule(5, 100, 0.02, 2.0));
  EXPECT_FALSE(stop.done(at(kFourSteady, 0.0)));
  EXPECT_FALSE(stop.done(at(kFourSteady, 100.0)));  // not even when out of time
}

TEST(StoppingRule, StopsOnceTheRsdIsLowEnough) {
  const StoppingRule stop(rule(5, 100, 0.02, 2.0));
  EXPECT_TRUE(stop.done(at(kSteady, 0.1)));
  EXPECT_STREQ(stop.reason(at(kSteady, 0.1)), "rsd");
  EXPECT_FALSE(stop.done(at(kNoisy, 0.1)));
}

TEST(StoppingRule, StopsWhenOutOfTime) {
  const StoppingRule stop(rule(5, 100, 0.02, 2.0));
  EXPECT_FALSE(stop.done(at(kNoisy, 1.99)));
  EXPECT_TRUE(stop.done(at(kNoisy, 2.0)));
  EXPECT_STREQ(stop.reason(at(kNoisy, 2.0)), "time");
}

TEST(StoppingRule, StopsAtMaxSamples) {
  const StoppingRule stop(rule(5, 8, 0.02, 2.0));
  const std::vector<double> seven = {1, 2, 1, 2, 1, 2, 1}, eight = {1, 2, 1, 2, 1, 2, 1, 2};
  EXPECT_FALSE(stop.done(at(seven, 0.5)));
  EXPECT_TRUE(stop.done(at(eight, 0.5)));
  EXPECT_STREQ(stop.reason(at(eight, 0.5)), "max_samples");
}

TEST(StoppingRule, MaxSamplesEqualToMinSamplesIsAFixedCount) {
  const StoppingRule stop(rule(3, 3, 0.0, 1000.0));
  const std::vector<double> two = {1.0, 5.0}, three = {1.0, 5.0, 9.0};
  EXPECT_FALSE(stop.done(at(two, 0.0)));
  EXPECT_TRUE(stop.done(at(three, 0.0)));
}

using testing::ScriptedWorkload;

// Cold samples: one execution each, on caches flushed after the poisoning.
MeasureOptions cold() {
  MeasureOptions o;
  o.mode = MeasureMode::cold;
  return o;
}

TEST(Measure, OrderOfPoisonRunVerify) {
  // First run verified, one more warm-up run, then three samples, then a last check.
  ScriptedWorkload w({9.0, 9.0, 3.0, 1.0, 2.0}, 0);
  const Measurement m = measure(w, rule(3, 3, 0.0, 100.0, 2), cold());
  EXPECT_EQ(w.log,
            "PSRTV"
            "SRT"
            "PFSRT"
            "PFSRT"
            "PFSRT"
            "V");
  EXPECT_EQ(w.runs, 5);
  EXPECT_EQ(m.samples_ms, (std::vector<double>{3.0, 1.0, 2.0}));  // warm-ups are not samples
  EXPECT_EQ(m.stats.samples, 3);
  EXPECT_DOUBLE_EQ(m.stats.median, 2.0);
  EXPECT_STREQ(m.stop_reason, "max_samples");
  EXPECT_TRUE(m.verification.passed);
  EXPECT_DOUBLE_EQ(m.verification.max_rel_err, 5e-9);  // the worse of the two checks
}

TEST(Measure, NoWarmupBeyondTheVerifiedRun) {
  ScriptedWorkload w({}, 0);
  measure(w, rule(1, 1, 0.0, 100.0, 0), cold());
  EXPECT_EQ(w.log,
            "PSRTV"
            "PFSRT"
            "V");
}

TEST(Measure, AWrongFirstResultEndsThePointBeforeAnySample) {
  ScriptedWorkload w({}, 1);
  const Measurement m = measure(w, rule(5, 100, 0.02, 2.0));
  EXPECT_EQ(w.log, "PSRTV");
  EXPECT_FALSE(m.verification.passed);
  EXPECT_EQ(m.verification.message, "wrong");
  EXPECT_TRUE(m.samples_ms.empty());
}

TEST(Measure, AResultThatGoesWrongDuringSamplingIsCaughtByTheLastCheck) {
  ScriptedWorkload w({}, 4);  // runs 1-3 right, from run 4 on wrong
  const Measurement m = measure(w, rule(5, 5, 0.0, 100.0, 2));
  EXPECT_EQ(m.samples_ms.size(), 5u);
  EXPECT_FALSE(m.verification.passed);
  EXPECT_EQ(m.verification.message, "wrong");
}

TEST(Measure, SteadySamplesStopAtMinSamples) {
  ScriptedWorkload w(std::vector<double>(200, 1.0), 0);
  const Measurement m = measure(w, rule(5, 100, 0.02, 1000.0, 1));
  EXPECT_EQ(m.samples_ms.size(), 5u);
  EXPECT_STREQ(m.stop_reason, "rsd");
}

TEST(Measure, NoisySamplesRunToMaxSamples) {
  std::vector<double> times;
  for (int i = 0; i < 200; ++i) times.push_back(i % 2 ? 1.0 : 3.0);
  ScriptedWorkload w(times, 0);
  const Measurement m = measure(w, rule(5, 40, 0.02, 1000.0, 1));
  EXPECT_EQ(m.samples_ms.size(), 40u);
  EXPECT_STREQ(m.stop_reason, "max_samples");
}

}  // namespace
}  // namespace runner
