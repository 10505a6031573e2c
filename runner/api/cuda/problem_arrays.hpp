#pragma once
// The device side of the problem in flight: arrays of the points' problem kept in device memory
// for every point of that problem this worker runs (points come grouped by problem). A reference
// built on the device, or the expected output of a data-movement kernel, costs its work once per
// problem instead of once per point, and never crosses the PCIe bus.
//
// An array is never handed to a kernel under test: kernels get their own buffers, so a faulty
// kernel cannot corrupt what the points after it are compared with.
#include "runner/api/gpu/runtime.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <span>

#include "runner/api/workload.hpp"

namespace runner::cuda {

// Slots name the arrays of a problem: 0, 1, ... for inputs, kReferenceSlot for what outputs are
// compared with.
inline constexpr int kReferenceSlot = -1;

// Writes the array into `device` (as many bytes as asked) on `stream`. Returns false when it
// could not, for want of device memory for its own temporaries: the caller keeps to the host path.
using DeviceArrayBuilder = std::function<bool(void* device, cudaStream_t stream)>;

// Array `slot` of `problem`: built by `build` into fresh device memory on the first call for that
// problem, then the same pointer for every later call, until a point of another problem asks (or
// the problem's last user has let go). Returns nullptr when the device has no room for it.
const void* problem_array_on_device(const std::shared_ptr<const Problem>& problem, int slot,
                                    std::size_t bytes, const DeviceArrayBuilder& build,
                                    cudaStream_t stream);

// Typed form: `build(T* device, cudaStream_t)` fills `count` elements.
template <typename T, typename Build>
const T* problem_array_on_device(const std::shared_ptr<const Problem>& problem, int slot,
                                 std::size_t count, Build&& build, cudaStream_t stream) {
  return static_cast<const T*>(problem_array_on_device(
      problem, slot, count * sizeof(T),
      [&build](void* device, cudaStream_t s) -> bool { return build(static_cast<T*>(device), s); },
      stream));
}

// The host array `host` copied to the device once per problem.
template <typename T>
const T* problem_array_on_device(const std::shared_ptr<const Problem>& problem, int slot,
                                 std::span<const T> host, cudaStream_t stream) {
  return problem_array_on_device<T>(
      problem, slot, host.size(),
      [host](T* device, cudaStream_t s) {
        return cudaMemcpyAsync(device, host.data(), host.size_bytes(), cudaMemcpyHostToDevice, s) ==
               cudaSuccess;
      },
      stream);
}

}  // namespace runner::cuda
