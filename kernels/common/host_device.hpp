#pragma once
// RUNNER_HOST_DEVICE: a function compiled for the host and, under nvcc or hipcc, for the device
// too, so that host code (a variant's set-up, the unit tests) and kernels share one definition.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define RUNNER_HOST_DEVICE __host__ __device__
#else
#define RUNNER_HOST_DEVICE
#endif
