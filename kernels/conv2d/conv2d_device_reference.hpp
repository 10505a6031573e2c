#pragma once
// The device side of a conv2d problem's reference: the zero-padded cross-correlation of
// conv2d_problem.hpp summed in double on the GPU, one thread per output, the taps in the host
// reference's order, over the image generated on the device as T (exactly the values the variants
// see) and the problem's filter. Once per problem (runner/api/cuda/problem_arrays.hpp). It agrees
// with the host reference to double rounding: tests/gpu check it.
#include "runner/api/gpu/runtime.hpp"

#include "kernels/conv2d/conv2d_problem.hpp"

namespace runner::kernels::conv2d {

// Writes the m×n reference of `problem` into `out` (device memory) on `stream`. Returns false when
// the device has no room for the image and filter it needs for a while.
bool compute_reference_on_device(const Conv2dProblem<float>& problem, double* out,
                                 cudaStream_t stream);

}  // namespace runner::kernels::conv2d
