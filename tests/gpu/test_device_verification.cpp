// compare_on_device (runner/api/cuda/device_verification.hpp) against compare_with_reference, the
// host comparison it replaces for CUDA points: the same verdict, the same error figure to the bit,
// the same message, on outputs that are exact, slightly off, wrong at one element, or hold NaNs;
// and the per-problem device copies that feed it.
#include <cuda_runtime.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "runner/api/cuda/device_buffer.hpp"
#include "runner/api/cuda/device_verification.hpp"
#include "runner/api/gpu_info.hpp"
#include "runner/api/verification.hpp"

namespace runner {
namespace {

class DeviceVerification : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu_info().present) GTEST_SKIP() << "no GPU: " << gpu_info().absent_reason;
  }
};

template <typename T>
void expect_same_verdict(const std::vector<T>& out, const std::vector<double>& ref,
                         double tolerance) {
  const Verification host =
      compare_with_reference<T>(std::span<const T>(out), std::span<const double>(ref), tolerance);
  cuda::DeviceBuffer<T> d_out(out.size());
  cuda::DeviceBuffer<double> d_ref(ref.size());
  d_out.copy_from_host(std::span<const T>(out), nullptr);
  d_ref.copy_from_host(std::span<const double>(ref), nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const Verification device = cuda::compare_on_device<T, double>(d_out.data(), d_ref.data(),
                                                                 out.size(), tolerance, nullptr);
  EXPECT_EQ(device.passed, host.passed);
  if (std::isinf(host.max_rel_err))
    EXPECT_TRUE(std::isinf(device.max_rel_err));
  else
    EXPECT_EQ(device.max_rel_err, host.max_rel_err);  // a maximum and a division: bit for bit
  EXPECT_EQ(device.message, host.message);
}

template <typename T>
struct Case {
  std::vector<T> out;
  std::vector<double> ref;
};

template <typename T>
Case<T> random_case(std::size_t n, double noise, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Case<T> c;
  c.ref.resize(n);
  c.out.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    c.ref[i] = u(gen);
    c.out[i] = static_cast<T>(c.ref[i] * (1 + noise * u(gen)));
  }
  return c;
}

TEST_F(DeviceVerification, AgreesWithTheHostOnRightAndWrongOutputs) {
  // Sizes around the chunking of the blocks (64 × 256 elements a block) and a large one.
  for (const std::size_t n :
       {std::size_t{1}, std::size_t{7}, std::size_t{16384}, std::size_t{16385},
        std::size_t{1} << 22, (std::size_t{1} << 22) + 3}) {
    SCOPED_TRACE(n);
    auto f = random_case<float>(n, 1e-7, 1);
    expect_same_verdict(f.out, f.ref, 1e-6);  // within tolerance
    expect_same_verdict(f.out, f.ref, 1e-9);  // beyond it: the message names the element
    auto d = random_case<double>(n, 0, 2);
    expect_same_verdict(d.out, d.ref, 0.0);  // exact
    d.out[n / 2] += 0.5;                     // one wrong element
    expect_same_verdict(d.out, d.ref, 0.0);
    d.out[n - 1] = std::numeric_limits<double>::quiet_NaN();  // and a NaN after it
    expect_same_verdict(d.out, d.ref, 0.0);
    f.out[0] = std::numeric_limits<float>::infinity();
    expect_same_verdict(f.out, f.ref, 1e-6);
  }
}

TEST_F(DeviceVerification, TiesReportTheFirstElementAsTheHostDoes) {
  std::vector<double> ref(100000, 1.0), out(100000, 1.0);
  out[70000] = out[30000] = out[99999] = 2.0;
  expect_same_verdict(out, ref, 0.0);
}

TEST_F(DeviceVerification, AnExactCopyIsComparedWithItsInputOfTheSameType) {
  std::vector<float> in(12345);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) * 0.5f - 7;
  cuda::DeviceBuffer<float> a(in.size()), b(in.size());
  a.copy_from_host(std::span<const float>(in), nullptr);
  b.copy_from_host(std::span<const float>(in), nullptr);
  EXPECT_TRUE(
      (cuda::compare_on_device<float, float>(b.data(), a.data(), in.size(), 0.0, nullptr).passed));
  in[12344] += 1;
  b.copy_from_host(std::span<const float>(in), nullptr);
  const Verification v =
      cuda::compare_on_device<float, float>(b.data(), a.data(), in.size(), 0.0, nullptr);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.message.find("element 12344"), std::string::npos) << v.message;
}

struct FakeProblem : Problem {};

TEST_F(DeviceVerification, AProblemsArraysAreCopiedOnceAndFreedForTheNextProblem) {
  std::vector<double> host(1000, 3.0);
  auto first = std::make_shared<const FakeProblem>();
  const double* a = cuda::problem_array_on_device(first, 0, std::span<const double>(host), nullptr);
  ASSERT_NE(a, nullptr);
  host.assign(1000, 4.0);  // a second call must not copy again
  EXPECT_EQ(cuda::problem_array_on_device(first, 0, std::span<const double>(host), nullptr), a);
  double back = 0;
  ASSERT_EQ(cudaMemcpy(&back, a + 999, sizeof back, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, 3.0);
  // Another problem: fresh copies, of its own data.
  auto second = std::make_shared<const FakeProblem>();
  const double* b =
      cuda::problem_array_on_device(second, 0, std::span<const double>(host), nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(cudaMemcpy(&back, b, sizeof back, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, 4.0);
  // A problem freed and another made at the same address is not mistaken for the old one.
  const Problem* address = second.get();
  second.reset();
  auto third = std::make_shared<const FakeProblem>();
  host.assign(1000, 5.0);
  const double* c = cuda::problem_array_on_device(third, 0, std::span<const double>(host), nullptr);
  ASSERT_EQ(cudaMemcpy(&back, c, sizeof back, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, 5.0) << (third.get() == address ? "same address reused" : "");
}

TEST_F(DeviceVerification, AnArrayTheDeviceCannotHoldLeavesTheHostPath) {
  auto problem = std::make_shared<const FakeProblem>();
  std::size_t free_b = 0, total_b = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
  bool built = false;  // never: the allocation fails first
  EXPECT_EQ(
      cuda::problem_array_on_device(
          problem, 0, total_b * 2, [&](void*, cudaStream_t) { return built = true; }, nullptr),
      nullptr);
  EXPECT_FALSE(built);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // and no error is left behind
}

TEST_F(DeviceVerification, ABuilderThatCannotBuildLeavesTheHostPathAndIsAskedAgain) {
  auto problem = std::make_shared<const FakeProblem>();
  int calls = 0;
  auto refuse = [&](double*, cudaStream_t) {
    ++calls;
    return false;  // e.g. no room for its own temporaries
  };
  EXPECT_EQ(
      cuda::problem_array_on_device<double>(problem, cuda::kReferenceSlot, 100, refuse, nullptr),
      nullptr);
  EXPECT_EQ(
      cuda::problem_array_on_device<double>(problem, cuda::kReferenceSlot, 100, refuse, nullptr),
      nullptr);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

}  // namespace
}  // namespace runner
