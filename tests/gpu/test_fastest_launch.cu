// cuda::fastest_launch ranks a variant's code paths at set-up as the point's samples will be taken:
// cold, one launch after an L2 flush; hot, a batch of launches back to back. Candidates here are
// kernels that wait a known time on the GPU's clock, so the ranking and its medians are known.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "runner/api/cuda/detail/launch_guard.hpp"
#include "runner/api/cuda/fastest_launch.hpp"

namespace runner {
namespace {

// One thread that returns once `ns` have passed on the GPU's global timer.
__global__ void wait_ns(unsigned long long ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

class FastestLaunch : public ::testing::Test {
 protected:
  void SetUp() override {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) GTEST_SKIP() << "no GPU";
    ASSERT_EQ(cudaStreamCreate(&stream_), cudaSuccess);
  }
  void TearDown() override {
    if (stream_) cudaStreamDestroy(stream_);
  }
  // A candidate that waits `us` on the GPU and counts its launches.
  std::function<void()> waiting(double us, int& launches) {
    return [this, us, &launches] {
      ++launches;
      wait_ns<<<1, 1, 0, stream_>>>(static_cast<unsigned long long>(us * 1000));
    };
  }
  cudaStream_t stream_ = nullptr;
};

// The 20 µs candidate of three wins in both modes; each median is its own wait (per launch in a
// hot batch); every candidate ran once untimed and then rounds × batch times.
TEST_F(FastestLaunch, RanksByTheMedianOfEachModesSamples) {
  for (const MeasureMode mode : {MeasureMode::cold, MeasureMode::hot}) {
    SCOPED_TRACE(std::string(measure_mode_name(mode)));
    int launches[3] = {0, 0, 0};
    const std::vector<std::function<void()>> candidates{
        waiting(60, launches[0]), waiting(20, launches[1]), waiting(120, launches[2])};
    const cuda::LaunchRanking ranking = cuda::fastest_launch(candidates, stream_, mode, 5);
    EXPECT_EQ(ranking.fastest, 1u);
    ASSERT_EQ(ranking.median_ms.size(), 3u);
    EXPECT_NEAR(ranking.median_ms[0], 0.060, 0.015);
    EXPECT_NEAR(ranking.median_ms[1], 0.020, 0.015);
    EXPECT_NEAR(ranking.median_ms[2], 0.120, 0.015);
    const int batch = mode == MeasureMode::hot ? cuda::kHotRankingBatch : 1;
    EXPECT_EQ(ranking.batch, batch);
    EXPECT_EQ(ranking.rounds, 5);
    for (const int n : launches) EXPECT_EQ(n, 1 + 5 * batch);
    EXPECT_EQ(ranking.rounds_text(), mode == MeasureMode::hot
                                         ? "median of 5 hot batches of 4 launches each"
                                         : "median of 5 cold launches each");
  }
}

// The host's time to enqueue a candidate is not the candidate's: one that spends 300 µs on the
// host before a 20 µs kernel ranks ahead of one that launches a 60 µs kernel at once (where the
// launch guard is on, as for the samples).
TEST_F(FastestLaunch, LeavesTheHostsEnqueueTimeOut) {
  if (!cuda::launch_guard_enabled()) GTEST_SKIP() << "launch guard off (RUNNER_LAUNCH_GUARD)";
  int launches[2] = {0, 0};
  const std::function<void()> slow_host = waiting(20, launches[0]);
  const std::vector<std::function<void()>> candidates{
      [&] {
        std::this_thread::sleep_for(std::chrono::microseconds(300));
        slow_host();
      },
      waiting(60, launches[1])};
  for (const MeasureMode mode : {MeasureMode::cold, MeasureMode::hot}) {
    const cuda::LaunchRanking ranking = cuda::fastest_launch(candidates, stream_, mode);
    EXPECT_EQ(ranking.fastest, 0u) << measure_mode_name(mode);
    EXPECT_LT(ranking.median_ms[0], 0.040) << measure_mode_name(mode);
  }
}

// A single candidate is the fastest without being run.
TEST_F(FastestLaunch, DoesNotRunASingleCandidate) {
  int launches = 0;
  const std::vector<std::function<void()>> one{waiting(20, launches)};
  const cuda::LaunchRanking ranking = cuda::fastest_launch(one, stream_, MeasureMode::hot);
  EXPECT_EQ(ranking.fastest, 0u);
  EXPECT_EQ(ranking.median_ms, std::vector<double>{0.0});
  EXPECT_EQ(ranking.rounds, 0);
  EXPECT_EQ(launches, 0);
}

}  // namespace
}  // namespace runner
