#include "runner/api/cuda/fastest_launch.hpp"

#include <algorithm>

#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/cuda/detail/event_clock.hpp"
#include "runner/api/cuda/detail/l2_flush.hpp"
#include "runner/api/cuda/detail/launch_guard.hpp"

namespace runner::cuda {

std::string LaunchRanking::rounds_text() const {
  if (mode == MeasureMode::hot)
    return "median of " + std::to_string(rounds) + " hot batches of " + std::to_string(batch) +
           " launches each";
  return "median of " + std::to_string(rounds) + " cold launches each";
}

LaunchRanking fastest_launch(std::span<const std::function<void()>> candidates, cudaStream_t stream,
                             MeasureMode mode, int rounds) {
  const std::size_t count = candidates.size();
  LaunchRanking ranking;
  ranking.mode = mode;
  ranking.batch = mode == MeasureMode::hot ? kHotRankingBatch : 1;
  if (count == 0) return ranking;
  ranking.median_ms.assign(count, 0.0);
  if (count == 1) return ranking;
  ranking.rounds = rounds;
  for (const auto& launch : candidates) launch();
  RUNNER_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<std::vector<double>> times(count);
  EventClock clock(
      stream, launch_guard_enabled() ? EventClock::Guard::launch_guard : EventClock::Guard::none);
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t k = 0; k < count; ++k) {
      const std::size_t i = (k + static_cast<std::size_t>(round)) % count;
      if (mode == MeasureMode::cold) flush_l2(stream);
      clock.start();
      for (int b = 0; b < ranking.batch; ++b) candidates[i]();
      times[i].push_back(clock.stop_ms() / ranking.batch);
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
