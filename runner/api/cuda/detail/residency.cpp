#include "runner/api/cuda/residency.hpp"

#include <algorithm>

#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/gpu_info.hpp"

namespace runner::cuda {

Residency residency(const void* kernel, int threads, std::size_t shared_bytes) {
  int per_sm = 0;
  RUNNER_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared_bytes));
  Residency r;
  r.per_sm = std::max(per_sm, 1);
  r.blocks = std::int64_t{r.per_sm} * gpu_info().sm_count;
  return r;
}

}  // namespace runner::cuda
