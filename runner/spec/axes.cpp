#include "runner/api/axis.hpp"

#include <fmt/format.h>

namespace runner {

std::string_view axis_name(Axis a) {
  switch (a) {
    case Axis::kernel: return "kernel";
    case Axis::variant: return "variant";
    case Axis::size: return "size";
    case Axis::dtype: return "dtype";
    case Axis::block: return "block";
    case Axis::threads: return "threads";
    case Axis::kernel_size: return "kernel_size";
    case Axis::grid: return "grid";
    case Axis::print: return "print";
  }
  return "?";
}

std::optional<Axis> parse_axis(std::string_view s) {
  for (Axis a : kAllAxes)
    if (axis_name(a) == s) return a;
  return std::nullopt;
}

std::string to_string(const ProblemSize& s) {
  if (s.k == 0) return fmt::format("{}x{}", s.m, s.n);
  return fmt::format("{}x{}x{}", s.m, s.n, s.k);
}

std::string to_string(const BlockShape& b) { return fmt::format("{}x{}", b.x, b.y); }

}  // namespace runner
