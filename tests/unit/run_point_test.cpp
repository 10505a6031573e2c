// run_point(): one point from problem to record, with the real CPU gemm variants and with test-only
// workloads that fail in each way a workload can.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

#include "runner/api/errors.hpp"
#include "runner/api/gpu/runtime_name.hpp"
#include "runner/api/gpu_info.hpp"
#include "runner/results/columns.hpp"
#include "runner/run/point_runner.hpp"
#include "runner/spec/matrix.hpp"
#include "tests/unit/fake_kernels.hpp"

namespace runner {
namespace {

const ExperimentSpec& tiny_gemm_spec() {
  static const ExperimentSpec spec = testing::parse(R"(experiment: unit_gemm
kernel: gemm
repeat: {warmup: 1, min_samples: 3, max_samples: 5, max_seconds: 0.5}
sweeps:
  - variant: [omp_serial, omp_naive, omp_blocked, omp_tiled, openblas]
    size: {m: 37, n: 29, k: 19}
    dtype: [float, double]
    threads: 2
)");
  return spec;
}

class GemmCpuVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(GemmCpuVariant, OddSizeIsVerifiedAndTimed) {
  const auto points = expand(tiny_gemm_spec(), Registry::instance());
  int seen = 0;
  for (const Point& p : points) {
    if (p.variant != GetParam()) continue;
    ++seen;
    const Record r = run_point(tiny_gemm_spec(), p, Registry::instance());
    SCOPED_TRACE(r.dump());
    EXPECT_EQ(r["status"], "ok");
    EXPECT_EQ(r["message"], "");
    EXPECT_EQ(r["verified"], true);
    EXPECT_EQ(r["experiment"], "unit_gemm");
    EXPECT_EQ(r["point_id"], p.id());
    EXPECT_EQ(r["point_key"], p.key());
    EXPECT_EQ(r["kernel"], "gemm");
    EXPECT_EQ(r["variant"], GetParam());
    EXPECT_EQ(r["backend"], "cpu");
    EXPECT_EQ(r["m"], 37);
    EXPECT_EQ(r["n"], 29);
    EXPECT_EQ(r["k"], 19);
    EXPECT_TRUE(r["block_x"].is_null());
    if (GetParam() == "omp_serial") {
      EXPECT_TRUE(r["threads"].is_null());
    } else {
      EXPECT_EQ(r["threads"], 2);
    }
    EXPECT_EQ(r["seed"], 42);
    EXPECT_EQ(r["is_baseline"], false);
    EXPECT_EQ(r["reference"], "cpu-double");

    const double tol = r["verify_tolerance"].get<double>();
    EXPECT_DOUBLE_EQ(tol, tolerance_for(*p.dtype, Precision::native, 19));
    EXPECT_LE(r["max_rel_err"].get<double>(), tol);

    const int samples = r["samples"].get<int>();
    EXPECT_GE(samples, 3);
    EXPECT_LE(samples, 5);
    const double median = r["time_ms_median"].get<double>();
    EXPECT_GT(median, 0.0);
    EXPECT_LE(r["time_ms_min"].get<double>(), median);
    EXPECT_GE(r["time_ms_max"].get<double>(), median);
    EXPECT_DOUBLE_EQ(r["gflops"].get<double>(), 2.0 * 37 * 29 * 19 / (median * 1e6));
    const double bytes =
        (37.0 * 19 + 19.0 * 29 + 37.0 * 29) * static_cast<double>(dtype_bytes(*p.dtype));
    EXPECT_DOUBLE_EQ(r["gbps"].get<double>(), bytes / (median * 1e6));
    const std::string reason = r["stop_reason"];
    EXPECT_TRUE(reason == "rsd" || reason == "time" || reason == "max_samples") << reason;
    // The comparative fields are the run's job (they need other records).
    EXPECT_TRUE(r["speedup"].is_null());
  }
  EXPECT_EQ(seen, 2);  // float and double
}

INSTANTIATE_TEST_SUITE_P(RunPoint, GemmCpuVariant,
                         ::testing::Values("omp_serial", "omp_naive", "omp_blocked", "omp_tiled",
                                           "openblas"));

TEST(RunPoint, RecordKeysAreTheColumnTableInOrder) {
  const auto points = expand(tiny_gemm_spec(), Registry::instance());
  const Record r = run_point(tiny_gemm_spec(), points.at(0), Registry::instance());
  auto it = r.begin();
  for (const auto& column : columns()) {
    ASSERT_NE(it, r.end());
    EXPECT_EQ(it.key(), column.name);
    ++it;
  }
  EXPECT_EQ(it, r.end());
}

TEST(RunPoint, ASizeBeyondHostMemoryIsSkippedWithTheReason) {
  const ExperimentSpec spec = testing::parse(
      "experiment: e\nkernel: gemm\nsweeps:\n  - {variant: omp_serial, size: 1000000}\n");
  const auto points = expand(spec, Registry::instance());
  ASSERT_EQ(points.size(), 1u);
  const Record r = run_point(spec, points[0], Registry::instance());
  EXPECT_EQ(r["status"], "skipped");
  // 3 × (3 · 10¹² floats) bytes
  EXPECT_TRUE(r["message"].get<std::string>().starts_with(
      "out of memory: needs about 36000.0 GB of host memory, "))
      << r["message"];
  EXPECT_NE(r["message"].get<std::string>().find("available (limited by "), std::string::npos)
      << r["message"];
  EXPECT_TRUE(r["time_ms_median"].is_null());
}

// --- test-only kernel: a reference of ones, and workloads that get it wrong in different ways ---

struct OnesProblem final : Problem {
  std::vector<double> reference;
};

class SelftestWorkload : public Workload {
 public:
  SelftestWorkload(std::shared_ptr<const Problem> problem, double value)
      : problem_(std::move(problem)), value_(value) {
    out_.resize(static_cast<const OnesProblem&>(*problem_).reference.size());
  }
  void poison_output() override { std::fill(out_.begin(), out_.end(), std::nan("")); }
  void run() override { std::fill(out_.begin(), out_.end(), value_); }
  Verification verify() override {
    return compare_with_reference<double>(
        out_, static_cast<const OnesProblem&>(*problem_).reference, 0.0);
  }
  nlohmann::json extra_fields() const override { return {{"h2d_ms", 0.25}}; }

 private:
  std::shared_ptr<const Problem> problem_;
  double value_;
  std::vector<double> out_;
};

class ThrowingWorkload final : public SelftestWorkload {
 public:
  using SelftestWorkload::SelftestWorkload;
  void run() override { throw std::runtime_error("device exploded"); }
};

const Registry& selftest_registry() {
  static const Registry registry = [] {
    KernelInfo k;
    k.name = "selftest";
    k.axes = {Axis::size, Axis::dtype};
    k.dtypes = {Dtype::f64};
    k.bytes = [](const Point& p) { return 16.0 * static_cast<double>(p.size->m * p.size->n); };
    k.make_problem = [](const Point& p, std::uint64_t) -> std::shared_ptr<const Problem> {
      auto problem = std::make_shared<OnesProblem>();
      problem->reference.assign(static_cast<std::size_t>(p.size->m * p.size->n), 1.0);
      return problem;
    };
    auto make = [](double value) {
      return [value](const Point&, std::shared_ptr<const Problem> p) -> std::unique_ptr<Workload> {
        return std::make_unique<SelftestWorkload>(std::move(p), value);
      };
    };
    k.variants = {
        {.name = "right", .factory = make(1.0)},
        {.name = "wrong", .factory = make(2.0)},
        {.name = "throws",
         .factory = [](const Point&,
                       std::shared_ptr<const Problem> p) -> std::unique_ptr<Workload> {
           return std::make_unique<ThrowingWorkload>(std::move(p), 1.0);
         }},
        {.name = "skips",
         .factory = [](const Point&, std::shared_ptr<const Problem>) -> std::unique_ptr<Workload> {
           throw PointSkipped("needs 80 GB of device memory");
         }},
        {.name = "impossible",
         .factory = [](const Point&, std::shared_ptr<const Problem>) -> std::unique_ptr<Workload> {
           throw PointInvalid("block 64x32 has 2048 threads, the device allows 1024");
         }},
        {.name = "unbuilt", .backend = Backend::cuda},
        {.name = "on_gpu", .backend = Backend::cuda, .factory = make(1.0)},
    };
    Registry r;
    r.add(std::move(k));
    return r;
  }();
  return registry;
}

Record run_selftest(const std::string& variant) {
  static const ExperimentSpec spec = testing::parse(
      "experiment: selftest\nkernel: selftest\nrepeat: {warmup: 1, min_samples: 2, max_samples: "
      "2}\n"
      "sweeps:\n  - {size: 5, dtype: double}\n");
  Point p{
      .kernel = "selftest", .variant = variant, .size = ProblemSize{5, 5, 0}, .dtype = Dtype::f64};
  return run_point(spec, p, selftest_registry());
}

TEST(RunPoint, RightResultIsOkAndCarriesExtraFields) {
  const Record r = run_selftest("right");
  EXPECT_EQ(r["status"], "ok");
  EXPECT_EQ(r["verified"], true);
  EXPECT_EQ(r["samples"], 2);
  EXPECT_EQ(r["h2d_ms"], 0.25);
  EXPECT_TRUE(r["gflops"].is_null());  // no flops function: no gflops
  EXPECT_GT(r["gbps"].get<double>(), 0.0);
}

TEST(RunPoint, WrongResultFailsVerification) {
  const Record r = run_selftest("wrong");
  EXPECT_EQ(r["status"], "failed");
  EXPECT_EQ(r["message"],
            "verification failed: max relative error 1 > tolerance 0 (element 0: 2 vs 1)");
  EXPECT_EQ(r["verified"], false);
  EXPECT_EQ(r["max_rel_err"], 1.0);
  EXPECT_TRUE(r["time_ms_median"].is_null());
  EXPECT_TRUE(r["samples"].is_null());
}

TEST(RunPoint, AnExceptionFailsThePointWithItsMessage) {
  const Record r = run_selftest("throws");
  EXPECT_EQ(r["status"], "failed");
  EXPECT_EQ(r["message"], "device exploded");
}

TEST(RunPoint, PointSkippedAndPointInvalidBecomeTheirStatus) {
  const Record skipped = run_selftest("skips");
  EXPECT_EQ(skipped["status"], "skipped");
  EXPECT_EQ(skipped["message"], "needs 80 GB of device memory");
  const Record invalid = run_selftest("impossible");
  EXPECT_EQ(invalid["status"], "invalid");
  EXPECT_EQ(invalid["message"], "block 64x32 has 2048 threads, the device allows 1024");
}

TEST(RunPoint, AVariantThatWasNotBuiltIsSkipped) {
  const Record r = run_selftest("unbuilt");
  EXPECT_EQ(r["status"], "skipped");
  EXPECT_EQ(r["message"], "built without CUDA");
  EXPECT_EQ(r["backend"], "cuda");
}

TEST(RunPoint, ACudaVariantWithoutAGpuIsSkipped) {
  if (gpu_info().present) GTEST_SKIP() << "a GPU is present";
  const Record r = run_selftest("on_gpu");
  EXPECT_EQ(r["status"], "skipped");
  // "no CUDA device: ..." ("no HIP device: ..." in a HIP build)
  EXPECT_TRUE(r["message"].get<std::string>().starts_with(std::string("no ") + gpu::kRuntimeName +
                                                          " device: "))
      << r["message"];
}

TEST(RunPoint, AnUnknownVariantIsInvalid) {
  const Record r = run_selftest("nonexistent");
  EXPECT_EQ(r["status"], "invalid");
  EXPECT_EQ(r["message"], "unknown kernel or variant in this binary");
}

}  // namespace
}  // namespace runner
