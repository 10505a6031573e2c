#pragma once
// The random inputs of every problem, element by element: uniform in [-1, 1), never zeros (which
// hide unwritten outputs and can run faster than real data). Element i of input `stream` (A = 0,
// B = 1, ...) is a hash of (seed, stream, i): the value depends on nothing else, so the host
// (kernels/common/random_fill.hpp) and the device (random_fill_device.cuh) make the same numbers
// bit for bit, in any order, on any number of threads. CPU and GPU variants of one problem see
// identical inputs whichever side built them.
#include <cstdint>

#include "kernels/common/host_device.hpp"

namespace runner::kernels {

RUNNER_HOST_DEVICE inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The hash state of one input array, computed once per array.
RUNNER_HOST_DEVICE inline std::uint64_t random_stream_base(std::uint64_t seed,
                                                           std::uint64_t stream) {
  return splitmix64(seed ^ splitmix64(stream + 0x51ED));
}

// Element `index` of the array whose base is `base`, as T. Exact on both sides: 53 random bits
// give u = r·2⁻⁵³ in [0, 1) and 2u − 1 = (r − 2⁵²)·2⁻⁵² is an exact double (no rounding, so no
// contraction into an FMA can change it); the cast to float rounds to nearest on host and device.
template <typename T>
RUNNER_HOST_DEVICE inline T random_value(std::uint64_t base, std::uint64_t index) {
  const std::uint64_t r = splitmix64(base + index);
  const double u = static_cast<double>(r >> 11) * 0x1p-53;
  return static_cast<T>(2.0 * u - 1.0);
}

}  // namespace runner::kernels
