#pragma once
// How many blocks of one kernel the GPU holds at once: what a persistent grid launches, what a
// grid capped at a few waves counts in, and the slots a split-K cost model fills.
#include <cstddef>
#include <cstdint>

namespace runner::cuda {

struct Residency {
  int per_sm = 1;           // blocks an SM holds at once; at least 1 (the launch runs them anyway)
  std::int64_t blocks = 0;  // per_sm × the device's SMs
};

// Blocks of `threads` threads and `shared_bytes` of dynamic shared memory on the current device
// (the occupancy calculator, which knows the kernel's registers and static shared memory).
Residency residency(const void* kernel, int threads, std::size_t shared_bytes);

}  // namespace runner::cuda
