#pragma once
// The 16-byte vector of each element type: one load or store instruction moves 16 bytes (float4,
// double2), the widest a thread issues. Kernels that move whole vectors take it from here.
#include "runner/api/gpu/runtime.hpp"  // float4, double2 (HIP: the same names)

namespace runner::kernels {

template <typename T>
struct Vector16;
template <>
struct Vector16<float> {
  using type = float4;
};
template <>
struct Vector16<double> {
  using type = double2;
};

}  // namespace runner::kernels
