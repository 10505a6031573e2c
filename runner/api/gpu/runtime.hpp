#pragma once
// The GPU runtime of this build, under CUDA's names. The runner's GPU code (runner/api/cuda/, the
// portable kernels of kernels/) is written against the CUDA runtime API and includes this header
// instead of <cuda_runtime.h>:
//   - a CUDA build (the default) gets <cuda_runtime.h> and nothing else;
//   - a HIP build (-DRUNNER_GPU=hip, AMD GPUs and DCUs, docs/hip.md) gets <hip/hip_runtime.h> and
//     runner/api/gpu/hip_names.hpp, which maps each CUDA name the runner uses to its HIP twin,
//     so that the same sources compile for AMD targets: the portability layer is this list of
//     names, not a copy of each kernel.
// What does not map one to one (the device timer, launch-bound hints, the warp size) has its own
// header here: runner/api/gpu/device_timer.hpp, runner/api/gpu/launch_bounds.hpp; the warp size
// is always the device's (GpuInfo::warp_size: 32 on NVIDIA, 64 on AMD's wavefronts).
#if defined(RUNNER_HAVE_HIP)
#include <hip/hip_runtime.h>

#include "runner/api/gpu/hip_names.hpp"
#else
#include <cuda_runtime.h>
#endif
