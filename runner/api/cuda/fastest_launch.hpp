#pragma once
// Which of a variant's code paths runs fastest on this device and this problem, measured at set-up:
// for a choice no rule of size and alignment makes right on every GPU (the same two forms of a
// kernel rank one way on an H100 and the other on an H200, where the memory is 1.4 × faster and
// the arithmetic the same). The time it takes is the point's set-up (setup_s), never its samples.
#include "runner/api/gpu/runtime.hpp"

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

namespace runner::cuda {

struct LaunchRanking {
  std::size_t fastest = 0;        // index into the candidates
  std::vector<double> median_ms;  // per candidate: median of its timed launches
};

// Runs every candidate once (module load, first-touch), then `rounds` rounds of one timed launch
// each, in an order that rotates every round so that no candidate always follows the same one,
// each launch after an L2 flush (flush_l2: the cold state the runner's samples start from) and
// timed alone with CUDA events on `stream`. The fastest is the lowest median; a tie goes to the
// first. Each candidate enqueues its whole work on `stream` and leaves the output to be
// poisoned again before the samples, as every run does. A single candidate is not run: it is the
// fastest, its median left 0.
LaunchRanking fastest_launch(std::span<const std::function<void()>> candidates, cudaStream_t stream,
                             int rounds = 5);

}  // namespace runner::cuda
