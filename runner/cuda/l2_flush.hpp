#pragma once
#include <cuda_runtime.h>

#include <cstddef>

namespace runner::cuda {

// Empties the device's L2 of everything a sample's kernel could reuse: enqueues on `stream` a
// write of a scratch buffer twice the L2's size (gpu_info().l2_bytes), which replaces every line.
// Twice, not once: Hopper's L2 is two partitions that may each hold a copy of a line, and the
// replacement policy is not documented to be strict LRU. The buffer is allocated at the first call
// and kept for the process (points run one at a time); it is never freed, as the CUDA runtime may
// be gone by the time static destructors run. Throws PointSkipped when the device has no room for
// it (runner/cuda/device_buffer.hpp).
void flush_l2(cudaStream_t stream);

// Bytes flush_l2 writes (0 before its first call).
std::size_t l2_flush_bytes();

}  // namespace runner::cuda
