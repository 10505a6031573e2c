// The measurement modes (cold: flushed caches, one execution per sample; hot: batches), how a
// config and a kernel choose them, and the record fields that say which one a point got.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runner/measure/environment.hpp"
#include "runner/measure/sampling.hpp"
#include "runner/results/measurement_columns.hpp"
#include "runner/run/point_runner.hpp"
#include "runner/spec/config.hpp"
#include "runner/spec/config_error.hpp"
#include "runner/spec/matrix.hpp"
#include "tests/unit/fake_kernels.hpp"
#include "tests/unit/scripted_measure.hpp"

namespace runner {
namespace {

using testing::ScriptedWorkload;

SamplingRule fixed_count(int samples, int warmup) {
  SamplingRule r;
  r.warmup = warmup;
  r.min_samples = samples;
  r.max_samples = samples;
  r.target_rsd = 0.0;
  r.max_seconds = 1000.0;
  return r;
}

MeasureOptions mode(MeasureMode m) {
  MeasureOptions o;
  o.mode = m;
  return o;
}

TEST(HotBatch, TwentyFiveLaunchesOrHalfASecond) {
  EXPECT_EQ(hot_batch_launches(0.001), 25);
  EXPECT_EQ(hot_batch_launches(20.0), 25);  // 25 × 20 ms = 0.5 s
  EXPECT_EQ(hot_batch_launches(21.0), 24);  // ⌈500 / 21⌉
  EXPECT_EQ(hot_batch_launches(100.0), 5);
  EXPECT_EQ(hot_batch_launches(499.0), 2);
  EXPECT_EQ(hot_batch_launches(600.0), 1);  // never less than one
  EXPECT_EQ(hot_batch_launches(0.0), 25);   // below the clock's resolution
}

TEST(Measure, HotSamplesAreBatchesTimedAsOneAndRecordedAsTheirMean) {
  // Warm-ups take 130 and 100 ms: the fastest, 100 ms, gives batches of 5.
  ScriptedWorkload w({130.0, 100.0, 400.0, 600.0}, 0);
  const Measurement m = measure(w, fixed_count(2, 2), mode(MeasureMode::hot));
  EXPECT_EQ(w.log,
            "PSRTV"
            "SRT"
            "PSRRRRRT"
            "PSRRRRRT"
            "V");
  EXPECT_EQ(m.mode, MeasureMode::hot);
  EXPECT_EQ(m.launches_per_sample, 5);
  EXPECT_EQ(m.samples_ms, (std::vector<double>{80.0, 120.0}));
  // Inside the clock: the two batches, 400 + 600 ms; warm-ups and checks are outside it.
  EXPECT_DOUBLE_EQ(m.timed_s, 1.0);
}

TEST(Measure, ColdSamplesAreOneExecutionOnFlushedCaches) {
  ScriptedWorkload w({1.0, 1.0, 2.0, 3.0}, 0);
  const Measurement m = measure(w, fixed_count(2, 2), mode(MeasureMode::cold));
  // The flush comes after the poisoning, which would otherwise leave the output in the cache.
  EXPECT_EQ(w.log,
            "PSRTV"
            "SRT"
            "PFSRT"
            "PFSRT"
            "V");
  EXPECT_EQ(m.mode, MeasureMode::cold);
  EXPECT_EQ(m.launches_per_sample, 1);
  EXPECT_EQ(m.samples_ms, (std::vector<double>{2.0, 3.0}));
  EXPECT_DOUBLE_EQ(m.timed_s, 0.005);
}

TEST(Measure, AWorkloadThatCannotFlushIsRecordedHotEvenWhenColdIsAsked) {
  ScriptedWorkload w({250.0, 500.0}, 0, /*can_flush=*/false);
  const Measurement m = measure(w, fixed_count(1, 1), mode(MeasureMode::cold));
  EXPECT_EQ(w.log,
            "PSRTV"
            "PSRRT"
            "V");
  EXPECT_EQ(m.mode, MeasureMode::hot);
  EXPECT_EQ(m.launches_per_sample, 2);
  EXPECT_EQ(m.samples_ms, (std::vector<double>{250.0}));
}

TEST(MeasureConfig, TopLevelKeyChoosesTheMode) {
  EXPECT_FALSE(testing::parse("experiment: e\nkernel: gemm\nsweeps:\n  - {size: 8}\n").measure);
  EXPECT_EQ(testing::parse("experiment: e\nmeasure: cold\nsweeps:\n  - {size: 8}\n").measure,
            MeasureMode::cold);
  EXPECT_EQ(testing::parse("experiment: e\nmeasure: hot\nsweeps:\n  - {size: 8}\n").measure,
            MeasureMode::hot);
}

TEST(MeasureConfig, AnotherValueIsALocatedError) {
  try {
    testing::parse("experiment: e\nmeasure: warm\nsweeps:\n  - {size: 8}\n");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.located(), "test.yaml:2:10: measure must be cold or hot, got 'warm'");
  }
}

TEST(KernelDefaults, MemoryBoundKernelsAreColdAndGemmIsHot) {
  const Registry& r = Registry::instance();
  ASSERT_NE(r.find("gemm"), nullptr);
  EXPECT_EQ(r.find("gemm")->measure_mode(), MeasureMode::hot);
  ASSERT_NE(r.find("transpose"), nullptr);
  EXPECT_EQ(r.find("transpose")->measure_mode(), MeasureMode::cold);
  KernelInfo k;
  k.name = "gemm";
  k.default_measure = MeasureMode::cold;  // the registration's word wins
  EXPECT_EQ(k.measure_mode(), MeasureMode::cold);
}

TEST(MeasureRecord, ACpuPointSaysHotAndItsBatch) {
  const ExperimentSpec spec = testing::parse(R"(experiment: e
kernel: transpose
measure: cold
repeat: {warmup: 1, min_samples: 2, max_samples: 3, max_seconds: 0.2}
sweeps:
  - {variant: omp_serial, size: {m: 33, n: 17}, dtype: float}
)");
  const auto points = expand(spec, Registry::instance());
  ASSERT_EQ(points.size(), 1u);
  const Record r = run_point(spec, points[0], Registry::instance());
  SCOPED_TRACE(r.dump());
  ASSERT_EQ(r["status"], "ok");
  EXPECT_EQ(r["measure"], "hot");  // a CPU's caches are not flushed: cold would be a lie
  EXPECT_GE(r["launches_per_sample"].get<int>(), 1);
  EXPECT_LE(r["launches_per_sample"].get<int>(), kHotBatchMaxLaunches);
}

// --- stopping: rsd with a minimum of timed seconds, max_seconds as the timeout ---

SamplingRule settling(double target_rsd, double min_seconds, double max_seconds) {
  SamplingRule r;
  r.warmup = 1;
  r.min_samples = 3;
  r.max_samples = 1000;
  r.target_rsd = target_rsd;
  r.min_seconds = min_seconds;
  r.max_seconds = max_seconds;
  return r;
}

TEST(StoppingRule, TheRsdCountsOnlyOnceMinSecondsAreTimed) {
  const StoppingRule stop(settling(0.005, 0.05, 2.0));
  const std::vector<double> steady(5, 1.0);
  EXPECT_FALSE(stop.done(SamplingProgress{steady, 0.049, 0.2}));
  EXPECT_TRUE(stop.done(SamplingProgress{steady, 0.050, 0.2}));
  EXPECT_STREQ(stop.reason(SamplingProgress{steady, 0.050, 0.2}), "rsd");
}

TEST(StoppingRule, MaxSecondsIsTheTimeoutEvenBeforeMinSeconds) {
  const StoppingRule stop(settling(0.005, 10.0, 2.0));
  const std::vector<double> steady(5, 1.0);
  EXPECT_FALSE(stop.done(SamplingProgress{steady, 0.005, 1.9}));
  EXPECT_TRUE(stop.done(SamplingProgress{steady, 0.005, 2.0}));
  EXPECT_STREQ(stop.reason(SamplingProgress{steady, 0.005, 2.0}), "time");
  // Steady samples that just did not fill min_seconds are not noisy.
  EXPECT_EQ(stop.noise_warning(steady), "");
}

TEST(StoppingRule, NoiseWarningNamesTheRsdTheTargetAndTheSamples) {
  const StoppingRule stop(settling(0.005, 0.0, 2.0));
  const std::vector<double> noisy = {1.0, 1.05, 0.95, 1.0};  // rsd 4.08 %
  EXPECT_EQ(stop.noise_warning(noisy), "rsd 4.1 % > target 0.5 % after 4 samples");
}

TEST(Measure, SamplesGoOnUntilMinSecondsAreTimed) {
  // The scripted clock reads 1 ms for every run and every batch: hot batches of 25 executions of
  // 0.04 ms, each sample timing 1 ms, so 0.1 s of timed samples takes 100 of them.
  ScriptedWorkload w({}, 0);
  const Measurement m = measure(w, settling(0.005, 0.1, 1000.0), mode(MeasureMode::hot));
  EXPECT_EQ(m.launches_per_sample, 25);
  EXPECT_EQ(m.samples_ms.size(), 100u);
  EXPECT_STREQ(m.stop_reason, "rsd");
  EXPECT_EQ(m.noise_warning, "");
}

TEST(Measure, NoisySamplesEndWithANoiseWarning) {
  std::vector<double> times = {1.0, 1.0};
  for (int i = 0; i < 50; ++i) times.push_back(i % 2 ? 1.0 : 1.2);
  ScriptedWorkload w(times, 0);
  SamplingRule r = settling(0.005, 0.0, 1000.0);
  r.max_samples = 10;
  const Measurement m = measure(w, r, mode(MeasureMode::cold));
  EXPECT_STREQ(m.stop_reason, "max_samples");
  EXPECT_EQ(m.noise_warning, "rsd 9.6 % > target 0.5 % after 10 samples");
}

// --- the SM clock: throttled samples are discarded and retaken ---

// Reads back scripted SM clocks, one per call (1500 MHz once they are used up); the minimum is
// 1000 MHz.
class ScriptedMonitor final : public DeviceMonitor {
 public:
  explicit ScriptedMonitor(std::vector<double> clocks) : clocks_(std::move(clocks)) {}
  std::optional<double> sm_clock_mhz() override {
    return next_ < clocks_.size() ? clocks_[next_++] : 1500.0;
  }
  double min_sm_clock_mhz() const override { return 1000.0; }
  std::optional<double> temperature_c() override { return 61.0; }
  std::optional<double> power_w() override { return 420.5; }

 private:
  std::vector<double> clocks_;
  std::size_t next_ = 0;
};

TEST(Measure, SamplesBelowTheMinimumClockAreDiscardedAndRetaken) {
  ScriptedWorkload w({5.0, 5.0, 7.0, 9.0, 2.0, 3.0, 4.0}, 0);
  ScriptedMonitor monitor({1400.0, 600.0, 999.0, 1200.0, 1600.0});
  MeasureOptions o = mode(MeasureMode::cold);
  o.monitor = &monitor;
  o.throttle_backoff_s = 0;
  const Measurement m = measure(w, fixed_count(3, 2), o);
  // 7 kept; 9 (600 MHz) and 2 (999 MHz) discarded; 3 and 4 kept.
  EXPECT_EQ(m.samples_ms, (std::vector<double>{7.0, 3.0, 4.0}));
  EXPECT_EQ(m.discarded_samples, 2);
  EXPECT_DOUBLE_EQ(*m.sm_clock_mhz, (1400.0 + 1200.0 + 1600.0) / 3);
  EXPECT_EQ(m.temperature_c, 61.0);
  EXPECT_EQ(m.power_w, 420.5);
  EXPECT_EQ(m.noise_warning.find("below"), std::string::npos);
}

TEST(Measure, PastMaxSecondsThrottledSamplesAreKeptAndSaidSo) {
  ScriptedWorkload w({}, 0);
  ScriptedMonitor monitor(std::vector<double>(100, 500.0));
  MeasureOptions o = mode(MeasureMode::cold);
  o.monitor = &monitor;
  o.throttle_backoff_s = 0.01;
  SamplingRule r = fixed_count(3, 1);
  r.max_seconds = 0.05;
  const Measurement m = measure(w, r, o);
  EXPECT_EQ(m.samples_ms.size(), 3u);
  EXPECT_GE(*m.discarded_samples, 1);
  EXPECT_EQ(m.noise_warning, "3 samples below 75 % of the default SM clock kept (out of time)");
}

TEST(Measure, WithoutAMonitorThereAreNoClockFields) {
  ScriptedWorkload w({}, 0);
  const Measurement m = measure(w, fixed_count(2, 1), mode(MeasureMode::hot));
  EXPECT_FALSE(m.discarded_samples);
  EXPECT_FALSE(m.sm_clock_mhz);
  EXPECT_FALSE(m.guard_timeouts);  // the scripted clock, like the CPU's, has no launch guard
  Record r;
  add_measurement_fields(r, m);
  EXPECT_EQ(r.dump(),
            R"({"measure":"hot","launches_per_sample":25,"noise_warning":"","timed_s":0.002})");
}

TEST(MeasureRecord, GpuFieldsAreNamedAsDocumented) {
  Measurement m;
  m.mode = MeasureMode::cold;
  m.guard_timeouts = 0;
  m.discarded_samples = 2;
  m.sm_clock_mhz = 1755.0;
  m.temperature_c = 48.0;
  m.power_w = 512.25;
  m.noise_warning = "rsd 0.8 % > target 0.5 % after 100 samples";
  Record r;
  add_measurement_fields(r, m);
  EXPECT_EQ(
      r.dump(),
      R"({"measure":"cold","launches_per_sample":1,)"
      R"("noise_warning":"rsd 0.8 % > target 0.5 % after 100 samples","timed_s":0.0,)"
      R"("guard_timeouts":0,)"
      R"("discarded_samples":2,"sm_clock_mhz":1755.0,"gpu_temp_c":48.0,"gpu_power_w":512.25})");
}

TEST(MeasureRecord, ACpuGemmPointCarriesEveryMeasurementField) {
  const ExperimentSpec spec = testing::parse(R"(experiment: e
kernel: gemm
repeat: {warmup: 1, min_samples: 2, max_samples: 3, max_seconds: 0.2}
sweeps:
  - {variant: omp_naive, size: {m: 21, n: 13, k: 8}, dtype: double, threads: 2}
)");
  const auto points = expand(spec, Registry::instance());
  ASSERT_EQ(points.size(), 1u);
  const Record r = run_point(spec, points[0], Registry::instance());
  SCOPED_TRACE(r.dump());
  ASSERT_EQ(r["status"], "ok");
  EXPECT_EQ(r["measure"], "hot");
  EXPECT_TRUE(r["noise_warning"].is_string());
  // Two CPUs, thread 0 first; each a CPU number, in brackets so that no spreadsheet reads the
  // cell as a number ("0,1" is 0.1 in a comma-decimal locale).
  const std::string cpus = r["omp_thread_cpus"];
  ASSERT_TRUE(cpus.starts_with('[') && cpus.ends_with(']')) << cpus;
  ASSERT_EQ(std::count(cpus.begin(), cpus.end(), ','), 1) << cpus;
  EXPECT_GE(std::stoi(cpus.substr(1, cpus.find(','))), 0);
  EXPECT_GE(std::stoi(cpus.substr(cpus.find(',') + 1)), 0);
  // Two threads fit the machine's cores or do not: the column says which, never empty.
  ASSERT_TRUE(r["oversubscribed"].is_boolean()) << r["oversubscribed"];
  EXPECT_EQ(r["oversubscribed"].get<bool>(), 2 > environment().cores);
  // flops / bytes: 2·m·n·k over (m·k + k·n + m·n) doubles.
  EXPECT_DOUBLE_EQ(r["arith_intensity"].get<double>(),
                   2.0 * 21 * 13 * 8 / ((21.0 * 8 + 8.0 * 13 + 21.0 * 13) * 8));
  // CPU points have no GPU figures (every column is there; these are empty).
  EXPECT_TRUE(r["sm_clock_mhz"].is_null());
  EXPECT_TRUE(r["guard_timeouts"].is_null());
}

}  // namespace
}  // namespace runner
