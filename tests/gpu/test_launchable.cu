// require_launchable on a kernel with static shared memory: the dynamic bytes a launch asks for
// and the kernel's own static bytes count together against the 48 KiB a block gets without the
// opt-in (a conv2d kernel once asked for exactly 48 KiB dynamic beside a 4-byte static index, and
// its launch failed with "invalid argument").
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "runner/api/cuda/cuda_workload.hpp"

namespace runner {
namespace {

constexpr int kThreads = 32;

// Each thread stages a value in static shared memory, then in dynamic, and writes its mirror
// thread's: both kinds of shared memory are used, so neither can be compiled away.
__global__ void static_and_dynamic_shared(int* out, int base) {
  __shared__ int staged[kThreads];  // static shared memory, beside the dynamic bytes
  extern __shared__ int dynamic[];
  const int t = static_cast<int>(threadIdx.x);
  staged[t] = base + t;
  __syncthreads();
  dynamic[t] = staged[kThreads - 1 - t];
  __syncthreads();
  out[t] = dynamic[kThreads - 1 - t] * 2;
}

TEST(RequireLaunchable, CountsStaticSharedMemoryBesideTheDynamicBytes) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) GTEST_SKIP() << "no GPU";
  constexpr std::size_t kDynamic = 48 * 1024;  // exactly the limit without the opt-in
  const void* kernel = reinterpret_cast<const void*>(static_and_dynamic_shared);
  cudaFuncAttributes attr{};
  ASSERT_EQ(cudaFuncGetAttributes(&attr, kernel), cudaSuccess);
  ASSERT_GT(attr.sharedSizeBytes, 0u);
  cuda::require_launchable(BlockShape{kThreads, 1}, kDynamic, kernel);
  int* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, kThreads * sizeof(int)), cudaSuccess);
  static_and_dynamic_shared<<<1, kThreads, kDynamic>>>(out, 7);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  int host[kThreads] = {};
  EXPECT_EQ(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(host[t], 2 * (7 + t)) << t;
  cudaFree(out);
}

}  // namespace
}  // namespace runner
