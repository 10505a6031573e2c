#pragma once
#include <string>

namespace runner {

// Names a stretch of the run for profilers (an NVTX push/pop range in CUDA builds, nothing
// otherwise): Nsight Systems shows each point as a range, and scripts/ncu-crosscheck attributes
// the kernels Nsight Compute profiles to points by it. Without a profiler attached an NVTX range
// costs a few nanoseconds.
class ProfilerRange {
 public:
  explicit ProfilerRange(const std::string& name);
  ~ProfilerRange();
  ProfilerRange(const ProfilerRange&) = delete;
  ProfilerRange& operator=(const ProfilerRange&) = delete;
};

}  // namespace runner
