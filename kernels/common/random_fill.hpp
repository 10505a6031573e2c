#pragma once
// Seeded random inputs, uniform in [-1, 1): never zeros (which hide unwritten outputs and can run
// faster than real data). Each element is a hash of (seed, stream, index), so the values do not
// depend on the number of threads that fill them and the fill runs in parallel.
#include <cstdint>
#include <span>
#include "kernels/common/host_parallel.hpp"

namespace runner::kernels {

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// `stream` tells apart the inputs of one problem (A = 0, B = 1, ...).
template <typename T>
void fill_uniform(std::span<T> out, std::uint64_t seed, std::uint64_t stream) {
  const auto n = static_cast<std::int64_t>(out.size());
  T* p = out.data();
  const std::uint64_t base = splitmix64(seed ^ splitmix64(stream + 0x51ED));
#pragma omp parallel for schedule(static) if (n >= kHostParallelFrom)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t r = splitmix64(base + static_cast<std::uint64_t>(i));
    // 53 random bits → [0, 1) → [-1, 1)
    const double u = static_cast<double>(r >> 11) * 0x1p-53;
    p[i] = static_cast<T>(2.0 * u - 1.0);
  }
}

}  // namespace runner::kernels
