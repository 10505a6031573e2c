#pragma once
// CUDA runtime names → HIP runtime names, for a HIP build (included by runner/api/gpu/runtime.hpp
// after <hip/hip_runtime.h>; never include it directly). The list holds exactly the names the
// runner's portable GPU code uses: a new CUDA call in that code fails to compile in the HIP build
// until its line is added here (or the variant is registered NVIDIA-only, runner/api/registry.hpp).
//
// Macros rather than aliases: the enumerators, the attribute constants and the overloaded
// functions (hipMalloc has a template overload, as cudaMalloc does) map in one form.
//
// Where HIP's meaning differs from CUDA's, the line says so.

// Types.
#define cudaDeviceProp hipDeviceProp_t
#define cudaError_t hipError_t
#define cudaEvent_t hipEvent_t
#define cudaFuncAttributes hipFuncAttributes
#define cudaStream_t hipStream_t

// Errors. HIP has no twin of cudaErrorHardwareStackError, cudaErrorIllegalInstruction,
// cudaErrorMisalignedAddress, cudaErrorInvalidAddressSpace or cudaErrorInvalidPc: a kernel fault on
// ROCm usually ends the process instead (the worker dies and the point is recorded failed).
#define cudaErrorAssert hipErrorAssert
#define cudaErrorECCUncorrectable hipErrorECCNotCorrectable
#define cudaErrorIllegalAddress hipErrorIllegalAddress
#define cudaErrorInsufficientDriver hipErrorInsufficientDriver
#define cudaErrorLaunchFailure hipErrorLaunchFailure
#define cudaErrorLaunchTimeout hipErrorLaunchTimeOut
#define cudaErrorMemoryAllocation hipErrorOutOfMemory
#define cudaErrorNoDevice hipErrorNoDevice
#define cudaErrorUnknown hipErrorUnknown
#define cudaGetErrorName hipGetErrorName
#define cudaGetErrorString hipGetErrorString
#define cudaGetLastError hipGetLastError
#define cudaSuccess hipSuccess

// Devices. AMD has no opt-in shared memory (LDS): a block may use the whole of it, which is what
// hipDeviceAttributeMaxSharedMemoryPerBlock reports (64 KiB on gfx906 and gfx90a).
#define cudaDevAttrClockRate hipDeviceAttributeClockRate
#define cudaDevAttrMaxBlockDimX hipDeviceAttributeMaxBlockDimX
#define cudaDevAttrMaxBlockDimY hipDeviceAttributeMaxBlockDimY
#define cudaDevAttrMaxSharedMemoryPerBlockOptin hipDeviceAttributeMaxSharedMemoryPerBlock
#define cudaDevAttrMaxThreadsPerBlock hipDeviceAttributeMaxThreadsPerBlock
#define cudaDevAttrMemoryClockRate hipDeviceAttributeMemoryClockRate
#define cudaDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount
#define cudaDeviceGetAttribute hipDeviceGetAttribute
#define cudaDeviceGetPCIBusId hipDeviceGetPCIBusId
#define cudaDriverGetVersion hipDriverGetVersion
#define cudaGetDevice hipGetDevice
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaRuntimeGetVersion hipRuntimeGetVersion

// Kernels.
#define cudaFuncAttributeMaxDynamicSharedMemorySize hipFuncAttributeMaxDynamicSharedMemorySize
#define cudaFuncGetAttributes hipFuncGetAttributes
#define cudaFuncSetAttribute hipFuncSetAttribute
#define cudaOccupancyMaxActiveBlocksPerMultiprocessor hipOccupancyMaxActiveBlocksPerMultiprocessor

// Memory. hipHostMalloc with hipHostMallocMapped gives pinned host memory the device reads over
// the bus, as cudaHostAlloc with cudaHostAllocMapped does.
#define cudaFree hipFree
#define cudaFreeAsync hipFreeAsync
#define cudaFreeHost hipHostFree
#define cudaHostAlloc hipHostMalloc
#define cudaHostAllocMapped hipHostMallocMapped
#define cudaHostGetDevicePointer hipHostGetDevicePointer
#define cudaMalloc hipMalloc
#define cudaMallocAsync hipMallocAsync
#define cudaMemGetInfo hipMemGetInfo
#define cudaMemcpy hipMemcpy
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemcpyToSymbolAsync hipMemcpyToSymbolAsync
#define cudaMemsetAsync hipMemsetAsync

// Streams and events.
#define cudaEventCreate hipEventCreate
#define cudaEventDestroy hipEventDestroy
#define cudaEventElapsedTime hipEventElapsedTime
#define cudaEventRecord hipEventRecord
#define cudaEventSynchronize hipEventSynchronize
#define cudaStreamCreateWithFlags hipStreamCreateWithFlags
#define cudaStreamDestroy hipStreamDestroy
#define cudaStreamNonBlocking hipStreamNonBlocking
#define cudaStreamSynchronize hipStreamSynchronize

// Device code. __ldcg (load, cache in L2 only) has no HIP twin: an ordinary load, which on AMD
// also goes through the L2.
#if defined(__HIP_DEVICE_COMPILE__) || defined(__HIPCC__)
template <typename T>
__device__ inline T __ldcg(const T* p) {
  return *p;
}
#endif
