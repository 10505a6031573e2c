#pragma once
#include "runner/api/gpu/runtime.hpp"

#include <cstddef>

namespace runner::cuda {

// Empties the device's L2 of everything a sample's kernel could reuse: enqueues on `stream` a
// read of a zero-filled scratch buffer twice the L2's size (gpu_info().l2_bytes), which replaces
// every line. Twice, not once: Hopper's L2 is two partitions that may each hold a copy of a line,
// and the replacement policy is not documented to be strict LRU. A read, not a write (a memset,
// as nvbench does): written lines stay dirty in the L2, and the timed kernel would then pay for
// writing them back to memory as it evicts them — about 5–8 µs per sample on an H100, 18 % of a
// 4096² transpose (measured against Nsight Compute, docs/measurement.md). After a read the L2
// holds clean lines only, the state Nsight Compute's own cache flush leaves. The buffer is
// allocated at the first call and kept for the process (points run one at a time); it is never
// freed, as the CUDA runtime may be gone by the time static destructors run. Throws PointSkipped
// when the device has no room for it (runner/api/cuda/device_buffer.hpp).
void flush_l2(cudaStream_t stream);

// Bytes flush_l2 reads (0 before its first call).
std::size_t l2_flush_bytes();

// Enqueues the reading kernel over `bytes` of `buffer` (runner/api/cuda/detail/l2_flush_kernel.cu).
void launch_l2_read(const void* buffer, std::size_t bytes, cudaStream_t stream);

}  // namespace runner::cuda
