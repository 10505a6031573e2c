#pragma once
// The warps (wavefronts on AMD) a kernel launch occupies, as seed report 003 counts them for a GPU
// point's parallel efficiency: a block's threads fill whole warps (a block of 1 thread is still
// one warp, a block of 65 threads two), blocks never share a warp, and the device holds at most
// SMs × (threads per SM / warp size) warps at once, so efficiency = speedup ÷ the smaller of the
// launch's warps and that resident maximum.
#include <algorithm>
#include <cstdint>

#include "runner/api/json.hpp"

namespace runner {

struct LaunchWaves {
  std::int64_t launch_warps = 0;    // blocks × ceil(threads per block / warp size)
  std::int64_t resident_warps = 0;  // the device's most at once: SMs × threads per SM / warp size
  // The divisor of efficiency: warps that can run at once.
  std::int64_t occupied() const { return std::min(launch_warps, resident_warps); }
};

// Zero figures where the launch or the device is unknown (a library call, no GPU).
inline LaunchWaves launch_waves(std::int64_t blocks, std::int64_t threads_per_block, int warp_size,
                                int sm_count, int max_threads_per_sm) {
  LaunchWaves w;
  if (blocks <= 0 || threads_per_block <= 0 || warp_size <= 0) return w;
  w.launch_warps = blocks * ((threads_per_block + warp_size - 1) / warp_size);
  w.resident_warps = static_cast<std::int64_t>(sm_count) * (max_threads_per_sm / warp_size);
  return w;
}

// The record's launch columns: grid_blocks, block_threads, launch_warps, resident_warps.
nlohmann::json launch_fields(std::int64_t blocks, std::int64_t threads_per_block,
                             const LaunchWaves& w);

}  // namespace runner
