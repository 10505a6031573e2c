#include "runner/measure/profiler_range.hpp"

#ifdef RUNNER_HAVE_CUDA
#include <nvtx3/nvToolsExt.h>  // header-only (NVTX 3): no library to link
#endif

namespace runner {

#ifdef RUNNER_HAVE_CUDA
ProfilerRange::ProfilerRange(const std::string& name) {
  nvtxRangePushA(name.c_str());
}
ProfilerRange::~ProfilerRange() {
  nvtxRangePop();
}
#else
ProfilerRange::ProfilerRange(const std::string&) {}
ProfilerRange::~ProfilerRange() = default;
#endif

}  // namespace runner
