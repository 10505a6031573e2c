#include "runner/api/cuda/detail/l2_flush.hpp"

#include <algorithm>

#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/cuda/device_buffer.hpp"
#include "runner/api/gpu_info.hpp"

namespace runner::cuda {

namespace {

struct Scratch {
  void* data = nullptr;
  std::size_t bytes = 0;
};

Scratch& scratch() {
  static Scratch s;
  return s;
}

}  // namespace

void flush_l2(cudaStream_t stream) {
  Scratch& s = scratch();
  if (!s.data) {
    // A device that reports no L2 size is treated as one with 32 MiB (that of an A100 is 40 MiB).
    const auto l2 = static_cast<std::size_t>(std::max<std::int64_t>(gpu_info().l2_bytes, 32 << 20));
    const std::size_t bytes = 2 * l2;
    const cudaError_t e = cudaMalloc(&s.data, bytes);
    if (e == cudaErrorMemoryAllocation) throw_out_of_device_memory(bytes);
    check(e, "cudaMalloc (L2 flush buffer)", __FILE__, __LINE__);
    // Zero-filled once; the reading kernel relies on it
    // (runner/api/cuda/detail/l2_flush_kernel.cu).
    RUNNER_CUDA_CHECK(cudaMemsetAsync(s.data, 0, bytes, stream));
    s.bytes = bytes;
  }
  launch_l2_read(s.data, s.bytes, stream);
  RUNNER_CUDA_CHECK(cudaGetLastError());
}

std::size_t l2_flush_bytes() {
  return scratch().bytes;
}

}  // namespace runner::cuda
