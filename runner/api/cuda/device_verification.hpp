#pragma once
// Verification of a CUDA point without bringing its output back: the problem's arrays are kept on
// the device for every point of that problem this worker runs, and the output is compared with
// the reference there. Per point this replaces a device→host copy of the output and a comparison
// on the host (at 16384² each costs as much as tens of kernel runs) by one pass over device memory.
#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <span>

#include "runner/api/verification.hpp"
#include "runner/api/workload.hpp"

namespace runner::cuda {

// The device copy of one array of `problem` (`slot` names which: 0, 1, ... for inputs, kReference
// for the reference), copied from the host on the first call for that problem and kept until a
// point of another problem asks (points come grouped by problem). Returns nullptr when the device
// has no room for it: the caller then keeps to the host path, and the point runs as before.
// The copy is never handed to a kernel: kernels get their own buffers (a device→device copy), so a
// faulty kernel cannot corrupt the inputs of the points after it.
inline constexpr int kReferenceSlot = -1;
const void* problem_array_on_device(const std::shared_ptr<const Problem>& problem, int slot,
                                    const void* host, std::size_t bytes, cudaStream_t stream);

template <typename T>
const T* problem_array_on_device(const std::shared_ptr<const Problem>& problem, int slot,
                                 std::span<const T> host, cudaStream_t stream) {
  return static_cast<const T*>(
      problem_array_on_device(problem, slot, host.data(), host.size_bytes(), stream));
}

// compare_with_reference (runner/api/verification.hpp) on the device: the same figures (the
// largest error relative to the largest reference magnitude, outputs that are NaN or infinite)
// and the same message, for an output and a reference that live in device memory. The reference
// is double, or T itself where the output must equal an array exactly (a copy). Waits for the
// stream.
template <typename T, typename R = double>
Verification compare_on_device(const T* out, const R* ref, std::size_t count, double tolerance,
                               cudaStream_t stream);

}  // namespace runner::cuda
