#pragma once
// cuBLAS status checks for the host code that calls cuBLAS (the cublas variants, the device
// reference): a failure becomes an exception that names the call, which fails the point.
#include <cublas_v2.h>

#include <stdexcept>

#include <fmt/format.h>

namespace runner::kernels::gemm {

inline void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(fmt::format("cuBLAS error {} ({}) in {}", cublasGetStatusName(status),
                                         cublasGetStatusString(status), call));
}

// A handle for the process, created on first use (outside any timed region: it allocates and
// loads kernels) and never destroyed: cublasDestroy at static destruction could run after the
// CUDA runtime has shut down, and the process exit reclaims it anyway. Each caller keeps its own
// (`Owner` tells them apart), so that one's stream and math mode never leak into another's calls.
template <typename Owner>
cublasHandle_t process_cublas_handle() {
  static const cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    check_cublas(cublasCreate(&h), "cublasCreate");
    return h;
  }();
  return handle;
}

}  // namespace runner::kernels::gemm

#define RUNNER_CUBLAS_CHECK(call) ::runner::kernels::gemm::check_cublas((call), #call)
