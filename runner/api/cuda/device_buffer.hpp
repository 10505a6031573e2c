#pragma once
#include "runner/api/gpu/runtime.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <utility>

#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/errors.hpp"

namespace runner::cuda {

// Throws PointSkipped with the sizes asked and free (runner/api/cuda/detail/cuda_errors.cpp).
[[noreturn]] void throw_out_of_device_memory(std::size_t bytes);

// Device memory for `count` elements of T, freed on destruction. An allocation the device cannot
// satisfy becomes PointSkipped ("does not fit in device memory"), not a failure.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    const cudaError_t e = cudaMalloc(&data_, count * sizeof(T));
    if (e == cudaErrorMemoryAllocation) throw_out_of_device_memory(count * sizeof(T));
    check(e, "cudaMalloc", __FILE__, __LINE__);
  }
  ~DeviceBuffer() {
    if (data_) (void)cudaFree(data_);
  }
  // For scratch memory a caller can do without: empty when the device has no room.
  static std::optional<DeviceBuffer> try_allocate(std::size_t count) {
    DeviceBuffer buffer;
    const cudaError_t e = cudaMalloc(&buffer.data_, count * sizeof(T));
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // not sticky: clear it
      return std::nullopt;
    }
    check(e, "cudaMalloc", __FILE__, __LINE__);
    buffer.count_ = count;
    return buffer;
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(count_, o.count_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void copy_from_host(std::span<const T> host, cudaStream_t stream) {
    RUNNER_CUDA_CHECK(
        cudaMemcpyAsync(data_, host.data(), host.size_bytes(), cudaMemcpyHostToDevice, stream));
  }
  void copy_from_device(const T* device, cudaStream_t stream) {
    RUNNER_CUDA_CHECK(cudaMemcpyAsync(data_, device, bytes(), cudaMemcpyDeviceToDevice, stream));
  }
  void copy_to_host(std::span<T> host, cudaStream_t stream) const {
    RUNNER_CUDA_CHECK(
        cudaMemcpyAsync(host.data(), data_, host.size_bytes(), cudaMemcpyDeviceToHost, stream));
  }
  // All bits set: a NaN for float and double, which no correct kernel writes.
  void poison(cudaStream_t stream) {
    RUNNER_CUDA_CHECK(cudaMemsetAsync(data_, 0xFF, bytes(), stream));
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace runner::cuda
