// cuBLAS GEMM, the vendor reference for the hand-written CUDA variants. Host code only (compiled
// by the C++ compiler, not nvcc).
//
// cuBLAS is column-major. A row-major m×n matrix is the column-major n×m matrix of its transpose,
// so C = A·B in row-major is C^T = B^T·A^T in column-major: gemm(n, m, k, B, ldb = n, A, lda = k,
// C, ldc = n) with no transposition flags computes it without moving any data.
#include <cublas_v2.h>

#include <climits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "kernels/gemm/gemm_cublas_check.hpp"
#include "kernels/gemm/gemm_cuda_workload.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::gemm {

namespace {

struct CublasVariant;  // owner of the variants' cuBLAS handle

// cublas?gemm takes int dimensions; checked before any device memory is allocated.
const Point& require_int_dimensions(const Point& point) {
  const ProblemSize& s = *point.size;
  if (s.m > INT_MAX || s.n > INT_MAX || s.k > INT_MAX)
    throw PointInvalid(
        fmt::format("size {} exceeds the 32-bit dimensions of cublas?gemm", to_string(s)));
  return point;
}

// `tf32`: SGEMM on the TF32 tensor cores (operands rounded to 10 mantissa bits, FP32
// accumulation), verified with the TF32 tolerance; float only.
template <typename T>
class Cublas final : public CudaGemm<T> {
 public:
  Cublas(const Point& point, std::shared_ptr<const Problem> problem, bool tf32 = false)
      : CudaGemm<T>(require_int_dimensions(point), std::move(problem),
                    tf32 ? Precision::tf32 : Precision::native),
        handle_(process_cublas_handle<CublasVariant>()) {
    // Points run one at a time, so the shared handle serves this workload until the next one
    // takes it over. Setting the stream here keeps run() to the one gemm call.
    RUNNER_CUBLAS_CHECK(cublasSetStream(handle_, this->stream()));
    // FP32: pedantic math forbids TF32 tensor cores (and any other reduced-precision shortcut),
    // so the reference does the arithmetic the hand-written kernels do. FP64: the default math
    // mode, whose FP64 tensor-core path is IEEE double FMA and is what DGEMM users get; pedantic
    // mode gives that up (4096³ on an H200: 61 TFLOP/s default, 46 pedantic).
    // TF32 (cublas_tf32): the tensor-op math mode lets cublasSgemm use TF32 tensor cores.
    cublasMath_t math = std::is_same_v<T, float> ? CUBLAS_PEDANTIC_MATH : CUBLAS_DEFAULT_MATH;
    if (tf32) math = CUBLAS_TF32_TENSOR_OP_MATH;
    RUNNER_CUBLAS_CHECK(cublasSetMathMode(handle_, math));
  }

  void run() override {
    const int m = static_cast<int>(this->m()), n = static_cast<int>(this->n()),
              k = static_cast<int>(this->k());
    const T one = 1, zero = 0;
    if constexpr (std::is_same_v<T, float>)
      RUNNER_CUBLAS_CHECK(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one,
                                      this->b_.data(), n, this->a_.data(), k, &zero,
                                      this->c_.data(), n));
    else
      RUNNER_CUBLAS_CHECK(cublasDgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one,
                                      this->b_.data(), n, this->a_.data(), k, &zero,
                                      this->c_.data(), n));
  }

 private:
  cublasHandle_t handle_;
};

}  // namespace

namespace {

// SGEMM on the TF32 tensor cores; float only (the registration says so, and so does this).
std::unique_ptr<Workload> tf32_sgemm(const Point& point, std::shared_ptr<const Problem> problem) {
  if (point.dtype && *point.dtype != Dtype::f32)
    throw PointInvalid("cublas_tf32 requires dtype float (TF32 is a single-precision mode)");
  return std::make_unique<Cublas<float>>(point, std::move(problem), /*tf32=*/true);
}

}  // namespace

RUNNER_FACTORY(cublas, by_dtype<Cublas>);
RUNNER_FACTORY(cublas_tf32, tf32_sgemm);

}  // namespace runner::kernels::gemm
