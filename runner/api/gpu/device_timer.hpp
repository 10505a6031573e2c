#pragma once
// A clock that device code can read, counting at a constant rate whatever the core clock does
// (the launch guard's timeout, runner/api/cuda/detail/launch_guard.hpp):
//   - NVIDIA: %globaltimer, in nanoseconds;
//   - AMD: s_memrealtime (wall_clock64()), which counts at a constant 100 MHz on gfx9 (Vega, MI50,
//     DCUs) and CDNA (MI100, MI200) GPUs, so 10 ns a tick.
// Safe to include in .cu files; include runner/api/gpu/runtime.hpp first.
#include <cstdint>

namespace runner::gpu {

#if defined(RUNNER_HAVE_HIP)
inline constexpr std::uint64_t kDeviceTimerNsPerTick = 10;
#else
inline constexpr std::uint64_t kDeviceTimerNsPerTick = 1;
#endif

// Ticks of the device timer in `ns` nanoseconds (host or device).
constexpr std::uint64_t device_timer_ticks(std::uint64_t ns) {
  return ns / kDeviceTimerNsPerTick;
}

#if defined(__CUDACC__) || defined(__HIPCC__)
// The device timer now, in ticks.
__device__ inline std::uint64_t device_timer_now() {
#if defined(RUNNER_HAVE_HIP)
#if defined(__HIP_DEVICE_COMPILE__)
  return static_cast<std::uint64_t>(wall_clock64());
#else
  return 0;  // the host pass of a device function (HIP declares wall_clock64 for the device only)
#endif
#else
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#endif
}
#endif

}  // namespace runner::gpu
