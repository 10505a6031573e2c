// The GEMM reference on the device (gemm_device_reference.hpp). Host code only: it enqueues the
// input generation (kernels/common/random_fill_device.hpp) and one cuBLAS DGEMM.
#include "kernels/gemm/gemm_device_reference.hpp"

#include <climits>

#include "kernels/common/random_fill_device.hpp"
#include "kernels/gemm/gemm_cublas_check.hpp"
#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/cuda/device_buffer.hpp"

namespace runner::kernels::gemm {

namespace {

struct DeviceReference;  // owner of the reference's cuBLAS handle
}  // namespace

template <typename T>
bool compute_reference_on_device(const GemmProblem<T>& p, double* c, cudaStream_t stream) {
  if (p.m > INT_MAX || p.n > INT_MAX || p.k > INT_MAX) return false;  // cublasDgemm's int sizes
  const auto m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);
  auto a = cuda::DeviceBuffer<double>::try_allocate(static_cast<std::size_t>(p.m * p.k));
  auto b = cuda::DeviceBuffer<double>::try_allocate(static_cast<std::size_t>(p.k * p.n));
  if (!a || !b) return false;
  // Exactly the values the variants see (made as T), widened to double.
  fill_uniform_on_device<T, double>(a->data(), static_cast<std::size_t>(p.m * p.k), p.seed, 0,
                                    stream);
  fill_uniform_on_device<T, double>(b->data(), static_cast<std::size_t>(p.k * p.n), p.seed, 1,
                                    stream);
  const cublasHandle_t handle = process_cublas_handle<DeviceReference>();
  RUNNER_CUBLAS_CHECK(cublasSetStream(handle, stream));
  // Pedantic: true FP64 arithmetic, no emulation or reduced-precision shortcut.
  RUNNER_CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH));
  const double one = 1.0, zero = 0.0;
  // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ (gemm_cublas.cuda.cpp).
  RUNNER_CUBLAS_CHECK(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b->data(), n,
                                  a->data(), k, &zero, c, n));
  // The scratch inputs are freed on return: wait until DGEMM no longer reads them.
  RUNNER_CUDA_CHECK(cudaStreamSynchronize(stream));
  return true;
}

template bool compute_reference_on_device(const GemmProblem<float>&, double*, cudaStream_t);
template bool compute_reference_on_device(const GemmProblem<double>&, double*, cudaStream_t);

}  // namespace runner::kernels::gemm
