#pragma once
// Seeded random inputs on the host: the values of kernels/common/random_values.hpp, filled in
// parallel for large arrays. random_fill_device.cuh makes the same arrays on the device.
#include <cstdint>
#include <span>

#include "kernels/common/host_parallel.hpp"
#include "kernels/common/random_values.hpp"

namespace runner::kernels {

// `stream` tells apart the inputs of one problem (A = 0, B = 1, ...).
template <typename T>
void fill_uniform(std::span<T> out, std::uint64_t seed, std::uint64_t stream) {
  const auto n = static_cast<std::int64_t>(out.size());
  T* p = out.data();
  const std::uint64_t base = random_stream_base(seed, stream);
#pragma omp parallel for schedule(static) if (n >= kHostParallelFrom)
  for (std::int64_t i = 0; i < n; ++i) p[i] = random_value<T>(base, static_cast<std::uint64_t>(i));
}

}  // namespace runner::kernels
