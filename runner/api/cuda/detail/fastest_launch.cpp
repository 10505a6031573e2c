#include "runner/api/cuda/fastest_launch.hpp"

#include <algorithm>

#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/cuda/detail/event_clock.hpp"
#include "runner/api/cuda/detail/l2_flush.hpp"

namespace runner::cuda {

LaunchRanking fastest_launch(std::span<const std::function<void()>> candidates, cudaStream_t stream,
                             int rounds) {
  const std::size_t count = candidates.size();
  LaunchRanking ranking;
  if (count == 0) return ranking;
  ranking.median_ms.assign(count, 0.0);
  if (count == 1) return ranking;
  for (const auto& launch : candidates) launch();
  RUNNER_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<std::vector<double>> times(count);
  EventClock clock(stream);
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t k = 0; k < count; ++k) {
      const std::size_t i = (k + static_cast<std::size_t>(round)) % count;
      flush_l2(stream);
      clock.start();
      candidates[i]();
      times[i].push_back(clock.stop_ms());
    }
  }
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<double>& t = times[i];
    std::sort(t.begin(), t.end());
    const std::size_t h = t.size() / 2;
    ranking.median_ms[i] = t.size() % 2 ? t[h] : (t[h - 1] + t[h]) / 2;
  }
  ranking.fastest = static_cast<std::size_t>(
      std::min_element(ranking.median_ms.begin(), ranking.median_ms.end()) -
      ranking.median_ms.begin());
  return ranking;
}

}  // namespace runner::cuda
