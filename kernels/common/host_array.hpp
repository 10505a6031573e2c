#pragma once
// Host buffers for kernel data: 64-byte aligned, not value-initialised, so that the first write to
// each page happens in the OpenMP loop that fills it (first touch places pages near the threads
// that will use them on NUMA machines).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <new>
#include <span>
#include "kernels/common/host_parallel.hpp"

namespace runner::kernels {

template <typename T>
class HostArray {
 public:
  HostArray() = default;
  explicit HostArray(std::size_t count) : count_(count) {
    const std::size_t bytes = ((count * sizeof(T) + 63) / 64) * 64;
    data_.reset(static_cast<T*>(std::aligned_alloc(64, bytes == 0 ? 64 : bytes)));
    if (!data_) throw std::bad_alloc();
  }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return count_; }
  T& operator[](std::size_t i) { return data_.get()[i]; }
  const T& operator[](std::size_t i) const { return data_.get()[i]; }
  std::span<T> span() { return {data(), count_}; }
  std::span<const T> span() const { return {data(), count_}; }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T, Free> data_;
  std::size_t count_ = 0;
};

// NaN everywhere, in parallel (static schedule, like the kernels' loops, for first touch).
template <typename T>
void poison(std::span<T> out) {
  const auto n = static_cast<std::int64_t>(out.size());
  T* p = out.data();
#pragma omp parallel for schedule(static) if (n >= kHostParallelFrom)
  for (std::int64_t i = 0; i < n; ++i) p[i] = std::numeric_limits<T>::quiet_NaN();
}

}  // namespace runner::kernels
