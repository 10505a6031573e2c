#pragma once
// The name of this build's GPU runtime, for messages: "CUDA error ..." or "HIP error ...".
namespace runner::gpu {

#if defined(RUNNER_HAVE_HIP)
inline constexpr const char* kRuntimeName = "HIP";
#else
inline constexpr const char* kRuntimeName = "CUDA";
#endif

}  // namespace runner::gpu
