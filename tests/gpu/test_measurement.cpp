// The measurement itself on a real GPU: cold samples are flushed, guarded single executions, hot
// ones batches; NVML reads the clock; the calibration's figures are plausible
// (docs/measurement.md). scripts/ncu-crosscheck checks the timings against Nsight Compute.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "runner/api/gpu_info.hpp"
#include "runner/api/registry.hpp"
#include "runner/base/forked_call.hpp"
#include "runner/measure/calibration.hpp"
#include "runner/measure/device_monitor.hpp"
#include "runner/run/point_runner.hpp"
#include "runner/spec/config.hpp"
#include "runner/spec/matrix.hpp"

namespace runner {
namespace {

class Measurement : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu_info().present) GTEST_SKIP() << "no GPU: " << gpu_info().absent_reason;
  }

  // The record of the one point of `yaml`, which must be ok.
  static Record run_one(const std::string& yaml) {
    const ExperimentSpec spec = parse_config(yaml, "test.yaml");
    const auto points = expand(spec, Registry::instance());
    EXPECT_EQ(points.size(), 1u);
    Record r = run_point(spec, points.at(0), Registry::instance());
    EXPECT_EQ(r.value("status", ""), "ok") << r.dump();
    return r;
  }
};

constexpr const char* kRepeat =
    "repeat: {warmup: 2, min_samples: 10, max_samples: 30, max_seconds: 1}\n";

TEST_F(Measurement, ColdSamplesAreSingleGuardedExecutions) {
  const Record r =
      run_one(std::string("experiment: t\nkernel: transpose\nmeasure: cold\n") + kRepeat +
              "sweeps:\n  - {variant: smem_pad, size: 2048, block: [32, 8], dtype: float}\n");
  SCOPED_TRACE(r.dump());
  EXPECT_EQ(r.value("measure", ""), "cold");
  EXPECT_EQ(r.value("launches_per_sample", 0), 1);
  EXPECT_EQ(r.value("guard_timeouts", -1), 0);
  EXPECT_GE(r.value("samples", 0), 10);
  if (gpu_monitor()) {
    EXPECT_GT(r.value("sm_clock_mhz", 0.0), 0.0);
    EXPECT_GE(r.value("discarded_samples", -1), 0);
    EXPECT_GT(r.value("gpu_power_w", 0.0), 0.0);
    EXPECT_GT(r.value("gpu_temp_c", 0.0), 0.0);
  }
}

TEST_F(Measurement, HotSamplesAreGuardedBatches) {
  const Record r = run_one(std::string("experiment: t\nkernel: gemm\nmeasure: hot\n") + kRepeat +
                           "sweeps:\n  - {variant: cublas, size: 512, dtype: float}\n");
  SCOPED_TRACE(r.dump());
  EXPECT_EQ(r.value("measure", ""), "hot");
  EXPECT_EQ(r.value("launches_per_sample", 0), 25);  // a 512³ SGEMM takes far less than 20 ms
  EXPECT_EQ(r.value("guard_timeouts", -1), 0);
}

TEST_F(Measurement, TheL2FlushMakesACacheSizedProblemSlower) {
  // 2048² floats in and out: 32 MB, which an H100's 50 MB L2 holds between hot executions and
  // the flush empties before each cold one.
  if (gpu_info().l2_bytes < 40 << 20) GTEST_SKIP() << "an L2 smaller than the problem";
  const std::string point =
      "sweeps:\n  - {variant: copy, size: 2048, block: [32, 8], dtype: float}\n";
  const Record cold =
      run_one(std::string("experiment: t\nkernel: transpose\nmeasure: cold\n") + kRepeat + point);
  const Record hot =
      run_one(std::string("experiment: t\nkernel: transpose\nmeasure: hot\n") + kRepeat + point);
  EXPECT_GT(cold.value("time_ms_median", 0.0), hot.value("time_ms_median", 0.0))
      << "cold " << cold.dump() << "\nhot " << hot.dump();
}

TEST_F(Measurement, NvmlReadsTheSmClock) {
  DeviceMonitor* monitor = gpu_monitor();
  if (!monitor) GTEST_SKIP() << "no NVML: " << gpu_monitor_unavailable_reason();
  const auto mhz = monitor->sm_clock_mhz();
  ASSERT_TRUE(mhz.has_value());
  EXPECT_GT(*mhz, 100.0);
  EXPECT_GT(monitor->min_sm_clock_mhz(), 100.0);
}

// The runner's parent lists the GPUs through NVML and then forks its workers, which read the clock
// through NVML: NVML's state does not survive fork(), so each process must initialise its own.
TEST_F(Measurement, NvmlAnswersInAProcessForkedAfterItsParentUsedIt) {
  std::string why_not;
  const auto listed = nvml_gpus(why_not);
  if (!listed) GTEST_SKIP() << "no NVML: " << why_not;
  ASSERT_FALSE(listed->empty());
  const auto describe = [](const std::vector<NvmlGpu>& gpus) {
    std::string text;
    for (const auto& g : gpus)
      text += fmt::format("{} {:04x}:{:02x}:{:02x}\n", g.uuid, g.domain, g.bus, g.device);
    return text;
  };
  const ForkedCallResult child = run_forked(
      [&] {
        std::string child_why_not;
        const auto again = nvml_gpus(child_why_not);
        return again ? describe(*again) : "NVML failed in the child: " + child_why_not;
      },
      60);
  ASSERT_TRUE(child.finished) << child.how_it_ended();
  EXPECT_EQ(child.text, describe(*listed));
}

TEST_F(Measurement, TheGpuCalibrationIsPlausible) {
  const nlohmann::ordered_json doc = calibrate_gpu();
  SCOPED_TRACE(doc.dump(2));
  const auto& c = doc["ceilings"];
  const double copy = c["copy_gbps"], theory = c["theoretical_bw_gbps"];
  EXPECT_GT(copy, 100.0);
  EXPECT_LT(copy, theory);  // no copy beats the bus
  EXPECT_GT(c["fp32_fma_gflops"].get<double>(), c["fp64_fma_gflops"].get<double>());
  EXPECT_GT(c["fp64_fma_gflops"].get<double>(), 0.0);
  // Pedantic SGEMM does FP32 FMAs: it cannot beat their peak by more than the measurement's noise.
  EXPECT_LT(c["sgemm_gflops"].get<double>(), 1.05 * c["fp32_fma_gflops"].get<double>());
  EXPECT_GT(c["sgemm_tf32_gflops"].get<double>(), c["sgemm_gflops"].get<double>());
  EXPECT_GT(c["dgemm_gflops"].get<double>(), 0.0);
}

}  // namespace
}  // namespace runner
