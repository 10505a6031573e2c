// The device side of every problem against its host side, at sizes both can do: the inputs
// generated on the device equal the host's bit for bit, and the references computed on the device
// (cuBLAS DGEMM, the direct double conv2d, the regenerated transpose) agree with the host ones
// (OpenBLAS dgemm, the host loops) to double rounding, or exactly where no arithmetic happens.
// GPU points are verified against the device references, so these are what keeps them honest.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/common/random_fill.hpp"
#include "kernels/common/random_fill_device.hpp"
#include "kernels/conv2d/conv2d_device_reference.hpp"
#include "kernels/conv2d/conv2d_problem.hpp"
#include "kernels/gemm/gemm_device_reference.hpp"
#include "kernels/gemm/gemm_problem.hpp"
#include "kernels/transpose/transpose_device_reference.hpp"
#include "kernels/transpose/transpose_problem.hpp"
#include "runner/api/cuda/device_buffer.hpp"
#include "runner/api/gpu_info.hpp"

namespace runner {
namespace {

class DeviceProblems : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu_info().present) GTEST_SKIP() << "no GPU: " << gpu_info().absent_reason;
  }
};

template <typename T>
std::vector<T> to_host(const cuda::DeviceBuffer<T>& d) {
  std::vector<T> h(d.size());
  EXPECT_EQ(cudaMemcpy(h.data(), d.data(), d.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
  return h;
}

// max |a − b| / max |b|: how far a device reference is from the host one.
double relative_distance(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return scale > 0 ? diff / scale : diff;
}

Point point_of(const char* kernel, Dtype dtype, std::int64_t m, std::int64_t n, std::int64_t k = 0,
               int ks = 0) {
  Point p;
  p.kernel = kernel;
  p.dtype = dtype;
  p.size = ProblemSize{m, n, k};
  if (ks) p.kernel_size = ks;
  return p;
}

template <typename T>
void expect_inputs_equal(std::size_t count, std::uint64_t seed, std::uint64_t stream) {
  std::vector<T> host(count);
  kernels::fill_uniform<T>(std::span<T>(host), seed, stream);
  cuda::DeviceBuffer<T> d(count);
  kernels::fill_uniform_on_device<T>(d.data(), count, seed, stream, nullptr);
  const std::vector<T> device = to_host(d);
  ASSERT_EQ(device.size(), host.size());
  for (std::size_t i = 0; i < count; ++i)
    ASSERT_EQ(device[i], host[i]) << "element " << i << " of " << count;  // bit for bit
  // The widened form the references use holds the same values.
  cuda::DeviceBuffer<double> wide(count);
  kernels::fill_uniform_on_device<T, double>(wide.data(), count, seed, stream, nullptr);
  const std::vector<double> widened = to_host(wide);
  for (std::size_t i = 0; i < count; ++i)
    ASSERT_EQ(widened[i], static_cast<double>(host[i])) << "element " << i;
}

TEST_F(DeviceProblems, InputsMadeOnTheDeviceEqualTheHostsBitForBit) {
  for (const std::size_t count : {std::size_t{1}, std::size_t{1000}, (std::size_t{1} << 21) + 7}) {
    SCOPED_TRACE(count);
    expect_inputs_equal<float>(count, 42, 0);
    expect_inputs_equal<float>(count, 7, 1);
    expect_inputs_equal<double>(count, 42, 0);
    expect_inputs_equal<double>(count, 123456789, 3);
  }
}

template <typename T>
void expect_gemm_references_agree(std::int64_t m, std::int64_t n, std::int64_t k) {
  SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
  const Dtype dtype = std::is_same_v<T, float> ? Dtype::f32 : Dtype::f64;
  const auto problem = kernels::gemm::make_problem(point_of("gemm", dtype, m, n, k), 42);
  const auto& p = static_cast<const kernels::gemm::GemmProblem<T>&>(*problem);
  cuda::DeviceBuffer<double> c(static_cast<std::size_t>(m * n));
  ASSERT_TRUE(kernels::gemm::compute_reference_on_device(p, c.data(), nullptr));
  // Two double GEMMs that sum in different orders: a few units of double rounding apart.
  EXPECT_LT(relative_distance(to_host(c), p.host().reference), 1e-13);
}

TEST_F(DeviceProblems, GemmReferenceOfCublasDgemmAgreesWithOpenblas) {
  for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{
           {1, 1, 1}, {37, 53, 71}, {256, 300, 129}, {64, 1, 1000}, {513, 257, 2049}}) {
    expect_gemm_references_agree<float>(m, n, k);
    expect_gemm_references_agree<double>(m, n, k);
  }
}

TEST_F(DeviceProblems, Conv2dReferenceAgreesWithTheHostLoop) {
  for (const auto& [m, n] :
       std::vector<std::array<std::int64_t, 2>>{{1, 1}, {37, 53}, {129, 131}}) {
    for (const int ks : {1, 3, 5, 7, 15, 31}) {
      SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + " ks " + std::to_string(ks));
      const auto problem =
          kernels::conv2d::make_problem(point_of("conv2d", Dtype::f32, m, n, 0, ks), 42);
      const auto& p = static_cast<const kernels::conv2d::Conv2dProblem<float>&>(*problem);
      cuda::DeviceBuffer<double> out(static_cast<std::size_t>(m * n));
      ASSERT_TRUE(kernels::conv2d::compute_reference_on_device(p, out.data(), nullptr));
      // The same sum in the same order; only the contraction of products into FMAs may differ.
      EXPECT_LT(relative_distance(to_host(out), p.host().reference), 1e-14);
    }
  }
}

template <typename T>
void expect_transposes_equal(std::int64_t m, std::int64_t n) {
  SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
  const Dtype dtype = std::is_same_v<T, float> ? Dtype::f32 : Dtype::f64;
  const auto problem = kernels::transpose::make_problem(point_of("transpose", dtype, m, n), 42);
  const auto& p = static_cast<const kernels::transpose::TransposeProblem<T>&>(*problem);
  cuda::DeviceBuffer<T> out(static_cast<std::size_t>(m * n));
  kernels::transpose::expected_transpose_on_device(p, out.data(), nullptr);
  const std::vector<T> device = to_host(out);
  const std::vector<double>& host = p.host().reference;
  for (std::size_t i = 0; i < host.size(); ++i)
    ASSERT_EQ(static_cast<double>(device[i]), host[i]) << "element " << i;
}

TEST_F(DeviceProblems, TransposeExpectedOutputEqualsTheHostReference) {
  for (const auto& [m, n] : std::vector<std::array<std::int64_t, 2>>{
           {1, 1}, {1, 1000}, {1000, 1}, {333, 1000}, {1025, 4097}}) {
    expect_transposes_equal<float>(m, n);
    expect_transposes_equal<double>(m, n);
  }
}

}  // namespace
}  // namespace runner
