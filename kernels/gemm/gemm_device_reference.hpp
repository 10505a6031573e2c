#pragma once
// The device side of a GEMM problem's reference: C in double computed on the GPU by cuBLAS DGEMM
// (pedantic FP64 math) over the problem's inputs, generated on the device as T and widened to
// double. Once per problem (runner/api/cuda/problem_arrays.hpp). It agrees with the host
// reference (OpenBLAS dgemm) to double rounding: tests/gpu check it.
#include "runner/api/gpu/runtime.hpp"

#include "kernels/gemm/gemm_problem.hpp"

namespace runner::kernels::gemm {

// Writes the m×n reference of `problem` into `c` (device memory) on `stream`. Returns false when
// the device has no room for the double inputs it needs for a while.
#if !defined(RUNNER_HAVE_HIP)
template <typename T>
bool compute_reference_on_device(const GemmProblem<T>& problem, double* c, cudaStream_t stream);
#else
// A HIP build has no BLAS on the device (rocBLAS is not wired in): the output is copied back and
// compared with the host reference (OpenBLAS dgemm), recorded as `reference: cpu-double`.
template <typename T>
bool compute_reference_on_device(const GemmProblem<T>&, double*, cudaStream_t) {
  return false;
}
#endif

}  // namespace runner::kernels::gemm
