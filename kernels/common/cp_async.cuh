// Asynchronous global → shared copies (cp.async, sm_80 and later), shared by the kernels that copy
// their tiles with it (gemm dmma's pipeline, conv2d shared_reg's tile copies). Device code only;
// nothing here may include fmt or spdlog.
//
// On an older architecture, and in a host compilation, the copy is made at once and commit / wait
// do nothing: a pipeline written for cp.async then runs correctly, just without the overlap.
#pragma once
#include <cuda_runtime.h>

namespace runner::kernels {

// Copies kBytes (4, 8 or 16: one cp.async) from global `src` to shared `dst`, or kBytes of zeros
// when !copy: a source size of 0 reads nothing and zero-fills (`src` must still be a valid
// address). 16-byte copies bypass L1 (.cg); smaller ones may use it (.ca, the only form they have).
template <int kBytes, typename T>
__device__ __forceinline__ void cp_async_zfill(T* dst, const T* src, bool copy) {
  static_assert(kBytes == 4 || kBytes == 8 || kBytes == 16, "cp.async copies 4, 8 or 16 bytes");
  static_assert(kBytes % sizeof(T) == 0, "whole elements");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const auto dst_shared = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (kBytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst_shared), "l"(src),
                 "r"(copy ? 16 : 0)
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst_shared), "l"(src),
                 "n"(kBytes), "r"(copy ? kBytes : 0)
                 : "memory");
#else
  for (int i = 0; i < kBytes / static_cast<int>(sizeof(T)); ++i) dst[i] = copy ? src[i] : T(0);
#endif
}

// Closes the group of this thread's copies issued since the last commit.
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until at most kPending committed groups of this thread are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}

}  // namespace runner::kernels
