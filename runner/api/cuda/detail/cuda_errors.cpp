// Messages of CUDA failures, built on the host side (nvcc-compiled files stay free of fmt).
#include "runner/api/gpu/runtime.hpp"

#include <fmt/format.h>

#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/cuda/cuda_workload.hpp"
#include "runner/api/cuda/device_buffer.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/gpu/runtime_name.hpp"

namespace runner::cuda {

namespace {
// Errors after which the CUDA context is unusable for the rest of the process ("sticky").
bool is_sticky(cudaError_t code) {
  switch (code) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorAssert:
#if !defined(RUNNER_HAVE_HIP)  // HIP has no twin of these (runner/api/gpu/hip_names.hpp)
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
#endif
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorUnknown:
      return true;
    default:
      return false;
  }
}
}  // namespace

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  const std::string what =
      fmt::format("{} error {} ({}) in {} at {}:{}", gpu::kRuntimeName, cudaGetErrorName(code),
                  cudaGetErrorString(code), call, file, line);
  if (is_sticky(code)) throw WorkerPoisoned(what);
  throw CudaError(code, what);
}

void throw_out_of_device_memory(std::size_t bytes) {
  (void)cudaGetLastError();  // cudaErrorMemoryAllocation is not sticky: clear it
  std::size_t free_b = 0, total_b = 0;
  (void)cudaMemGetInfo(&free_b, &total_b);
  throw PointSkipped(
      fmt::format("does not fit in device memory: {:.2f} GiB asked, {:.2f} GiB free of {:.2f}",
                  static_cast<double>(bytes) / (1 << 30), static_cast<double>(free_b) / (1 << 30),
                  static_cast<double>(total_b) / (1 << 30)));
}

void require_launchable(const BlockShape& block, std::size_t shared_bytes, const void* kernel) {
  int device = 0;
  RUNNER_CUDA_CHECK(cudaGetDevice(&device));
  int max_threads = 0, max_x = 0, max_y = 0, max_smem = 0;
  RUNNER_CUDA_CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, device));
  RUNNER_CUDA_CHECK(cudaDeviceGetAttribute(&max_x, cudaDevAttrMaxBlockDimX, device));
  RUNNER_CUDA_CHECK(cudaDeviceGetAttribute(&max_y, cudaDevAttrMaxBlockDimY, device));
  RUNNER_CUDA_CHECK(
      cudaDeviceGetAttribute(&max_smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (block.threads() > max_threads)
    throw PointInvalid(fmt::format("block {}x{} has {} threads; the device allows {}", block.x,
                                   block.y, block.threads(), max_threads));
  if (block.x > max_x || block.y > max_y)
    throw PointInvalid(fmt::format("block {}x{} exceeds the device's {}x{} per dimension", block.x,
                                   block.y, max_x, max_y));
  if (shared_bytes > static_cast<std::size_t>(max_smem))
    throw PointInvalid(fmt::format(
        "needs {} bytes of shared memory per block; the device allows {}", shared_bytes, max_smem));
  if (kernel) {
    cudaFuncAttributes attr{};
    RUNNER_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
    if (block.threads() > attr.maxThreadsPerBlock)
      throw PointInvalid(
          fmt::format("block of {} threads exceeds this kernel's limit of {} (its registers)",
                      block.threads(), attr.maxThreadsPerBlock));
    // The kernel's static shared memory counts against the same limits: a launch whose dynamic
    // and static bytes together pass 48 KiB needs the opt-in even where the dynamic bytes alone
    // do not (a persistent conv2d kernel asked for exactly 48 KiB plus its 4-byte tile index).
    const std::size_t total = shared_bytes + attr.sharedSizeBytes;
    if (total > static_cast<std::size_t>(max_smem))
      throw PointInvalid(fmt::format(
          "needs {} bytes of shared memory per block ({} dynamic, {} static); the device allows {}",
          total, shared_bytes, attr.sharedSizeBytes, max_smem));
    if (total > 48 * 1024)
      RUNNER_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(shared_bytes)));
  }
}

}  // namespace runner::cuda
