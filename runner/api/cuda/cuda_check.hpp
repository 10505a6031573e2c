#pragma once
// Checking every CUDA call: a failure becomes a CudaError whose message names the call, the file
// and the CUDA error string; the executor records it as the point's `failed` message.
#include "runner/api/gpu/runtime.hpp"

#include <stdexcept>
#include <string>

namespace runner::cuda {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

inline void check(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, call, file, line);
}

}  // namespace runner::cuda

#define RUNNER_CUDA_CHECK(call) ::runner::cuda::check((call), #call, __FILE__, __LINE__)
// After a kernel launch: a bad configuration shows up here, a fault in the kernel at the next sync.
#define RUNNER_CUDA_CHECK_LAUNCH() \
  ::runner::cuda::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
