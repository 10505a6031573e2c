// StoppingRule and measure(): how many samples a point gets, and the order of poison, run, verify.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runner/sampling.hpp"

namespace runner {
namespace {

SamplingRule rule(int min_samples, int max_samples, double target_rsd, double max_seconds, int warmup = 2) {
  SamplingRule r;
  r.warmup = warmup;
  r.min_samples = min_samples;
  r.max_samples = max_samples;
  r.target_rsd = target_rsd;
  r.max_seconds = max_seconds;
  return r;
}

const std::vector<double> kSteady(5, 1.0);
const std::vector<double> kNoisy = {1.0, 2.0, 1.0, 2.0, 1.0};  // rsd ≈ 0.39

TEST(StoppingRule, NeverBeforeMinSamples) {
  const StoppingRule stop(rule(5, 100, 0.02, 2.0));
  EXPECT_FALSE(stop.done({1.0, 1.0, 1.0, 1.0}, 0.0));
  EXPECT_FALSE(stop.done({1.0, 1.0, 1.0, 1.0}, 100.0));  // not even when out of time
}

TEST(StoppingRule, StopsOnceTheRsdIsLowEnough) {
  const StoppingRule stop(rule(5, 100, 0.02, 2.0));
  EXPECT_TRUE(stop.done(kSteady, 0.1));
  EXPECT_STREQ(stop.reason(kSteady, 0.1), "rsd");
  EXPECT_FALSE(stop.done(kNoisy, 0.1));
}

TEST(StoppingRule, StopsWhenOutOfTime) {
  const StoppingRule stop(rule(5, 100, 0.02, 2.0));
  EXPECT_FALSE(stop.done(kNoisy, 1.99));
  EXPECT_TRUE(stop.done(kNoisy, 2.0));
  EXPECT_STREQ(stop.reason(kNoisy, 2.0), "time");
}

TEST(StoppingRule, StopsAtMaxSamples) {
  const StoppingRule stop(rule(5, 8, 0.02, 2.0));
  const std::vector<double> seven = {1, 2, 1, 2, 1, 2, 1}, eight = {1, 2, 1, 2, 1, 2, 1, 2};
  EXPECT_FALSE(stop.done(seven, 0.5));
  EXPECT_TRUE(stop.done(eight, 0.5));
  EXPECT_STREQ(stop.reason(eight, 0.5), "max_samples");
}

TEST(StoppingRule, MaxSamplesEqualToMinSamplesIsAFixedCount) {
  const StoppingRule stop(rule(3, 3, 0.0, 1000.0));
  EXPECT_FALSE(stop.done({1.0, 5.0}, 0.0));
  EXPECT_TRUE(stop.done({1.0, 5.0, 9.0}, 0.0));
}

// A clock that reads back a scripted list of durations, one per stop_ms().
class ScriptedClock final : public SampleClock {
 public:
  explicit ScriptedClock(std::vector<double> times, std::string* log) : times_(std::move(times)), log_(log) {}
  void start() override { *log_ += "S"; }
  double stop_ms() override {
    *log_ += "T";
    const double t = next_ < times_.size() ? times_[next_] : 1.0;
    ++next_;
    return t;
  }

 private:
  std::vector<double> times_;
  std::size_t next_ = 0;
  std::string* log_;
};

// Records every call in order: P poison, S start, R run, T stop, V verify. Fails verification from
// run number `wrong_from` on (1-based; 0: never).
class ScriptedWorkload final : public Workload {
 public:
  ScriptedWorkload(std::vector<double> times, int wrong_from) : times_(std::move(times)), wrong_from_(wrong_from) {}
  void poison_output() override { log += "P"; }
  void run() override {
    log += "R";
    ++runs;
  }
  Verification verify() override {
    log += "V";
    Verification v;
    v.tolerance = 1e-6;
    v.passed = wrong_from_ == 0 || runs < wrong_from_;
    v.max_rel_err = v.passed ? 1e-9 * runs : 0.5;
    if (!v.passed) v.message = "wrong";
    return v;
  }
  std::unique_ptr<SampleClock> make_clock() override { return std::make_unique<ScriptedClock>(times_, &log); }

  std::string log;
  int runs = 0;

 private:
  std::vector<double> times_;
  int wrong_from_;
};

TEST(Measure, OrderOfPoisonRunVerify) {
  // First run verified, one more warm-up run, then three samples, then a last check.
  ScriptedWorkload w({9.0, 9.0, 3.0, 1.0, 2.0}, 0);
  const Measurement m = measure(w, rule(3, 3, 0.0, 100.0, 2));
  EXPECT_EQ(w.log, "PSRTV" "SRT" "PSRT" "PSRT" "PSRT" "V");
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
  measure(w, rule(1, 1, 0.0, 100.0, 0));
  EXPECT_EQ(w.log, "PSRTV" "PSRT" "V");
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
