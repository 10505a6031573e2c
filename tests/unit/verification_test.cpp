// compare_with_reference and tolerance_for: what counts as a correct result.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <omp.h>

#include <gtest/gtest.h>

#include "runner/api/registry.hpp"
#include "runner/api/verification.hpp"

namespace runner {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(ToleranceFor, DataMovementMustBeExact) {
  EXPECT_DOUBLE_EQ(tolerance_for(Dtype::f32, Precision::native, 1), 8.0 * 0x1p-24);  // one rounding
  EXPECT_EQ(tolerance_for(Dtype::f64, Precision::native, 0), 0.0);
}

TEST(ToleranceFor, GrowsWithTheSquareRootOfTheReduction) {
  EXPECT_DOUBLE_EQ(tolerance_for(Dtype::f32, Precision::native, 100), 8.0 * 0x1p-24 * 10.0);
  EXPECT_DOUBLE_EQ(tolerance_for(Dtype::f64, Precision::native, 4), 8.0 * 0x1p-53 * 2.0);
  EXPECT_DOUBLE_EQ(tolerance_for(Dtype::f32, Precision::native, 1024), 8.0 * 0x1p-24 * 32.0);
}

TEST(ToleranceFor, Tf32DoesNotGrowWithTheReduction) {
  EXPECT_DOUBLE_EQ(tolerance_for(Dtype::f32, Precision::tf32, 9), 16.0 * 0x1p-11);
  EXPECT_DOUBLE_EQ(tolerance_for(Dtype::f32, Precision::tf32, 4096), 16.0 * 0x1p-11);
}

// The real registry: a variant that computes in TF32 says so (VariantInfo::precision, which its
// workload passes to tolerance_for and the ceilings read) and runs only in float; the tuned gemm
// kernels are registered for the one dtype each supports. Registered in CPU-only builds too.
TEST(ToleranceFor, Tf32VariantsDeclareTheirPrecision) {
  const KernelInfo* gemm = Registry::instance().find("gemm");
  ASSERT_NE(gemm, nullptr);
  const VariantInfo* tf32 = gemm->find_variant("cublas_tf32");
  ASSERT_NE(tf32, nullptr);
  EXPECT_EQ(tf32->precision, Precision::tf32);
  for (const auto& k : Registry::instance().kernels())
    for (const auto& v : k.variants)
      if (v.precision == Precision::tf32) {
        EXPECT_EQ(v.dtypes, std::vector<Dtype>{Dtype::f32}) << k.name << "/" << v.name;
      }
  for (const char* name : {"cublas", "regtile", "dmma"}) {
    const VariantInfo* v = gemm->find_variant(name);
    ASSERT_NE(v, nullptr) << name;
    EXPECT_EQ(v->precision, Precision::native) << name;
  }
  EXPECT_EQ(gemm->find_variant("regtile")->dtypes, std::vector<Dtype>{Dtype::f32});
  EXPECT_EQ(gemm->find_variant("dmma")->dtypes, std::vector<Dtype>{Dtype::f64});
  // At the sizes gemm runs, TF32 is allowed far more error than FP32.
  EXPECT_GT(tolerance_for(Dtype::f32, Precision::tf32, 4096),
            50.0 * tolerance_for(Dtype::f32, Precision::native, 4096));
}

TEST(UnitRoundoff, ByPrecision) {
  EXPECT_EQ(unit_roundoff(Dtype::f32, Precision::native), 0x1p-24);
  EXPECT_EQ(unit_roundoff(Dtype::f64, Precision::native), 0x1p-53);
  EXPECT_EQ(unit_roundoff(Dtype::f32, Precision::tf32), 0x1p-11);
}

TEST(Compare, ExactResultPassesWithZeroTolerance) {
  const std::vector<float> out = {1.0f, -2.5f, 0.0f};
  const std::vector<double> ref = {1.0, -2.5, 0.0};
  const Verification v = compare_with_reference<float>(out, ref, 0.0);
  EXPECT_TRUE(v.passed);
  EXPECT_EQ(v.max_rel_err, 0.0);
  EXPECT_EQ(v.message, "");
}

TEST(Compare, ErrorIsNormwise) {
  // Element 1 is off by 1e-3 where the reference is 0: elementwise relative error would be
  // infinite; normwise it is 1e-3 / max|ref| = 1e-4.
  const std::vector<double> out = {10.0, 1e-3};
  const std::vector<double> ref = {10.0, 0.0};
  const Verification pass = compare_with_reference<double>(out, ref, 1e-4);
  EXPECT_TRUE(pass.passed);
  EXPECT_DOUBLE_EQ(pass.max_rel_err, 1e-4);
  EXPECT_DOUBLE_EQ(pass.tolerance, 1e-4);

  const Verification fail = compare_with_reference<double>(out, ref, 1e-5);
  EXPECT_FALSE(fail.passed);
  EXPECT_EQ(fail.message, "max relative error 0.0001 > tolerance 1e-05 (element 1: 0.001 vs 0)");
}

TEST(Compare, AllZeroReferenceUsesTheAbsoluteError) {
  const std::vector<double> out = {0.0, 0.5};
  const std::vector<double> ref = {0.0, 0.0};
  const Verification v = compare_with_reference<double>(out, ref, 0.1);
  EXPECT_FALSE(v.passed);
  EXPECT_DOUBLE_EQ(v.max_rel_err, 0.5);
}

TEST(Compare, NaNFailsWithItsCount) {
  const std::vector<float> out = {1.0f, static_cast<float>(kNaN), 3.0f, static_cast<float>(kNaN),
                                  5.0f};
  const std::vector<double> ref = {1.0, 2.0, 3.0, 4.0, 5.0};
  const Verification v = compare_with_reference<float>(out, ref, 1.0);  // any tolerance
  EXPECT_FALSE(v.passed);
  EXPECT_TRUE(std::isinf(v.max_rel_err));
  EXPECT_EQ(v.message, "2 of 5 output elements not written or not finite (first at 1)");
}

TEST(Compare, InfinityFailsLikeNaN) {
  const std::vector<double> out = {std::numeric_limits<double>::infinity()};
  const std::vector<double> ref = {1.0};
  const Verification v = compare_with_reference<double>(out, ref, 1.0);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.message, "1 of 1 output elements not written or not finite (first at 0)");
}

// Large outputs are compared by several OpenMP threads: the report must not depend on how the
// elements were split (first NaN, first element of the largest error, counts over all threads).
TEST(Compare, ALargeOutputReportsAsASerialScanWould) {
  const int threads_before = omp_get_max_threads();
  omp_set_num_threads(4);
  const std::size_t n = 1 << 20;
  std::vector<double> ref(n), out(n);
  for (std::size_t i = 0; i < n; ++i) ref[i] = out[i] = 1.0 + static_cast<double>(i % 7);
  ref[n - 1] = 100.0;  // the largest reference value, in the last thread's share
  out[n - 1] = 100.0;
  out[3 * n / 4 + 5] += 0.5;  // the same largest error twice, in two threads' shares:
  out[n / 4 + 3] += 0.5;      // the first one is reported
  out[n / 2] += 0.25;
  Verification v = compare_with_reference<double>(out, ref, 0.001);
  EXPECT_FALSE(v.passed);
  EXPECT_DOUBLE_EQ(v.max_rel_err, 0.5 / 100.0);
  EXPECT_NE(v.message.find("(element " + std::to_string(n / 4 + 3) + ":"), std::string::npos)
      << v.message;
  out[n - 2] = kNaN;
  out[n / 3] = kNaN;
  out[2 * n / 3] = kNaN;
  v = compare_with_reference<double>(out, ref, 1.0);
  EXPECT_EQ(v.message, "3 of " + std::to_string(n) +
                           " output elements not written or not finite (first at " +
                           std::to_string(n / 3) + ")");
  omp_set_num_threads(threads_before);
}

TEST(Compare, SizeMismatchFails) {
  const std::vector<float> out = {1.0f};
  const std::vector<double> ref = {1.0, 2.0};
  const Verification v = compare_with_reference<float>(out, ref, 1.0);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.message, "output has 1 elements, reference 2");
}

TEST(Compare, FloatRoundingOfADoubleReferencePassesTheFloatTolerance) {
  // A float result is the double reference rounded: error ≤ u·|ref|, well inside 8u·sqrt(n).
  std::vector<double> ref;
  std::vector<float> out;
  for (int i = 0; i < 1000; ++i) {
    ref.push_back(std::sin(0.37 * i) * 3.0);
    out.push_back(static_cast<float>(ref.back()));
  }
  const Verification v =
      compare_with_reference<float>(out, ref, tolerance_for(Dtype::f32, Precision::native, 2));
  EXPECT_TRUE(v.passed) << v.message;
  EXPECT_LE(v.max_rel_err, 0x1p-24);
}

}  // namespace
}  // namespace runner
