#pragma once
// Verification of a CUDA point without bringing its output back: the output is compared with the
// problem's reference where both live, in device memory (the reference kept there for every point
// of the problem, runner/api/cuda/problem_arrays.hpp). Per point this replaces a device→host copy
// of the output and a comparison on the host (at 16384² each costs as much as tens of kernel runs)
// by one pass over device memory.
#include "runner/api/gpu/runtime.hpp"

#include <cstddef>
#include <memory>
#include <span>

#include "runner/api/cuda/problem_arrays.hpp"
#include "runner/api/verification.hpp"

namespace runner::cuda {

// compare_with_reference (runner/api/verification.hpp) on the device: the same figures (the
// largest error relative to the largest reference magnitude, outputs that are NaN or infinite)
// and the same message, for an output and a reference that live in device memory. The reference
// is double, or T itself where the output must equal an array exactly (a copy). Waits for the
// stream.
template <typename T, typename R = double>
Verification compare_on_device(const T* out, const R* ref, std::size_t count, double tolerance,
                               cudaStream_t stream);

}  // namespace runner::cuda
