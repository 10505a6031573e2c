#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace runner {

// Element type of a point's data. Names are the ones configs and CSV files use.
enum class Dtype { f32, f64 };

inline std::string_view dtype_name(Dtype d) {
  return d == Dtype::f32 ? "float" : "double";
}
inline std::size_t dtype_bytes(Dtype d) {
  return d == Dtype::f32 ? 4 : 8;
}
inline std::optional<Dtype> parse_dtype(std::string_view s) {
  if (s == "float" || s == "f32" || s == "fp32") return Dtype::f32;
  if (s == "double" || s == "f64" || s == "fp64") return Dtype::f64;
  return std::nullopt;
}

// Arithmetic a variant really performs, which sets how close to the reference it must land.
// tf32 rounds operands to 10 mantissa bits (tensor cores); native is the dtype itself.
enum class Precision { native, tf32 };

}  // namespace runner
