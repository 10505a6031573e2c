#pragma once
// Which of a variant's code paths runs fastest on this device and this problem, measured at set-up:
// for a choice no rule of size and alignment makes right on every GPU (the same two forms of a
// kernel rank one way on an H100 and the other on an H200, where the memory is 1.4 × faster and
// the arithmetic the same). The time it takes is the point's set-up (setup_s), never its samples.
#include "runner/api/gpu/runtime.hpp"

#include <cstddef>
#include <cstdio>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "runner/api/measure_mode.hpp"

namespace runner::cuda {

struct LaunchRanking {
  std::size_t fastest = 0;        // index into the candidates
  std::vector<double> median_ms;  // per candidate: median of its timed rounds, per launch
  int rounds = 0;                 // timed rounds of each candidate (0: a single one, not run)
  MeasureMode mode = MeasureMode::cold;
  int batch = 1;  // launches a round (hot: back to back)

  // For a record's message: "median of 5 cold launches each" or "median of 5 hot batches of 4
  // launches each".
  std::string rounds_text() const;
};

// Launches a round of a hot ranking times back to back, as a hot sample's batch does.
constexpr int kHotRankingBatch = 4;

// Runs every candidate once (module load, first-touch), then `rounds` rounds of one timed sample
// each, in an order that rotates every round so that no candidate always follows the same one,
// each taken as the point's samples will be (`mode`, the point's Point::measure): cold, one launch
// after an L2 flush (flush_l2); hot, a batch of kHotRankingBatch launches back to back on the
// caches the previous ones left. Timed with CUDA events on `stream`, the launches held back until
// the host has enqueued them all (launch_guard.hpp, as the samples are): the ranking sees device
// time, not the host's launch overhead. The fastest is the lowest median; a tie goes to the first.
// Each candidate enqueues its whole work on `stream` and leaves the output to be poisoned again
// before the samples, as every run does. A single candidate is not run: it is the fastest, its
// median left 0.
LaunchRanking fastest_launch(std::span<const std::function<void()>> candidates, cudaStream_t stream,
                             MeasureMode mode, int rounds = 5);

// The fastest of a variant's candidates (its routes, paths or forms), each run by launch(c), which
// enqueues the candidate's whole work on `stream`, timed by fastest_launch as the point's samples
// will be taken (`mode`, Point::measure). Where more than one was timed, `message` becomes the
// record's account of it: "WHAT timed at set-up (median of 5 cold launches each): NAME 0.0123 ms;
// NAME 0.0101 ms", each candidate's describe(c) and median. A single candidate is returned untimed
// and `message` left as it is.
template <class Candidate, class Launch, class Describe>
Candidate fastest_candidate(std::vector<Candidate> candidates, const std::string& what,
                            cudaStream_t stream, MeasureMode mode, const Launch& launch,
                            const Describe& describe, std::string& message) {
  if (candidates.size() == 1) return std::move(candidates.front());
  std::vector<std::function<void()>> launches;
  for (const Candidate& c : candidates) launches.emplace_back([&launch, &c] { launch(c); });
  const LaunchRanking ranking = fastest_launch(launches, stream, mode);
  message = what + " timed at set-up (" + ranking.rounds_text() + "): ";
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    char ms[32];
    std::snprintf(ms, sizeof ms, " %.4f ms", ranking.median_ms[i]);
    message += (i ? "; " : "") + describe(candidates[i]) + ms;
  }
  return std::move(candidates[ranking.fastest]);
}

}  // namespace runner::cuda
