#pragma once
// What a transpose's output must equal, made on the device from the seed: the input's values
// (kernels/common/random_values.hpp) at their transposed places, as T, for an exact comparison
// (tolerance 0). No input is read, so nothing a kernel under test wrote can leak into it. Once per
// problem (runner/api/cuda/problem_arrays.hpp).
#include "runner/api/gpu/runtime.hpp"

#include "kernels/transpose/transpose_problem.hpp"

namespace runner::kernels::transpose {

// out (n×m) = the problem's input (m×n) transposed. Enqueued on `stream`.
template <typename T>
void expected_transpose_on_device(const TransposeProblem<T>& problem, T* out, cudaStream_t stream);

}  // namespace runner::kernels::transpose
