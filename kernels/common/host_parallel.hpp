#pragma once
#include <cstdint>

namespace runner::kernels {

// Host loops that only prepare a point (filling inputs, poisoning outputs, references) run on the
// OpenMP threads from this many elements on. Below it one thread is faster: a parallel region
// costs a fork/join, and afterwards the pool's threads spin for a while, competing with the
// worker and the runner on a small node. A matrix of thousands of tiny points paid milliseconds
// a point for it.
inline constexpr std::int64_t kHostParallelFrom = std::int64_t{1} << 16;

}  // namespace runner::kernels
