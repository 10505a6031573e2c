#pragma once
// Programmatic dependent launch (sm_90+): a kernel that only consumes what the kernel before it on
// the stream wrote — the split-K reduction after a GEMM, a GEMM after the copy of its operands —
// is launched while that kernel finishes instead of after it. Its launch (a few µs of a 60 µs
// GEMM at 1024³) then overlaps the producer's last blocks; the consumer waits, on the device, in
// wait_for_producer() until the producer has completed and its writes are visible, so what it
// reads is the same as with an ordinary launch.
//
// The producer may call allow_dependent_launch() once a block no longer needs to keep the SM to
// itself (a GEMM block after its k-loop): the consumer's blocks may be placed only when every
// producer block has called it or exited, so a producer of several waves never waits for
// resources that consumer blocks hold (its last wave is resident by then). Both calls are no-ops
// in a kernel launched the ordinary way and in code built for an architecture before sm_90;
// launch_dependent() launches the ordinary way wherever the consumer's code on this device was
// built so (an sm_80-only build on an H100 has no wait, and would read too early).
#include <cuda_runtime.h>

#include <mutex>
#include <unordered_map>
#include <utility>

#include "runner/api/cuda/cuda_check.hpp"

namespace runner::kernels {

// In a consumer, before its first read of what the producer wrote.
__device__ __forceinline__ void wait_for_producer() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// In a producer, once this block may share its SM with the consumer's blocks.
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}

// Whether the code of `kernel` this device runs was built for sm_90+, so that its
// wait_for_producer() waits (a JIT-compiled image keeps the architecture of its PTX). Asked of the
// runtime once per kernel: a point launches its consumers on every sample.
inline bool kernel_waits_for_producer(const void* kernel) {
  static std::mutex mutex;
  static std::unordered_map<const void*, bool> known;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto [it, inserted] = known.try_emplace(kernel, false);
  if (inserted) {
    cudaFuncAttributes attr{};
    if (cudaFuncGetAttributes(&attr, kernel) == cudaSuccess)
      it->second = attr.binaryVersion >= 90 && (attr.ptxVersion == 0 || attr.ptxVersion >= 90);
    else
      (void)cudaGetLastError();  // no attributes: the ordinary launch reports what is wrong
  }
  return it->second;
}

// Launches kernel<<<grid, block, shared_bytes, stream>>>(args...) as a programmatic dependent of
// the work before it on the stream where the device and the kernel's code support it (compute
// capability 9.0+, an sm_90+ image), the ordinary way elsewhere.
template <typename... Params, typename... Args>
void launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes,
                      cudaStream_t stream, Args&&... args) {
  if (!kernel_waits_for_producer(reinterpret_cast<const void*>(kernel))) {
    kernel<<<grid, block, shared_bytes, stream>>>(std::forward<Args>(args)...);
    RUNNER_CUDA_CHECK_LAUNCH();
    return;
  }
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  RUNNER_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
  RUNNER_CUDA_CHECK_LAUNCH();
}

}  // namespace runner::kernels
