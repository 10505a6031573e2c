#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace runner {

// The dimensions a config can sweep. `kernel` and `variant` pick the code; the others are values.
// Kernel-specific axes (kernel_size, grid, print) exist here too so that every axis has one
// spelling, one type and one place to look it up.
enum class Axis { kernel, variant, size, dtype, block, threads, kernel_size, grid, print };

inline constexpr std::array<Axis, 9> kAllAxes = {Axis::kernel,      Axis::variant, Axis::size,
                                                 Axis::dtype,       Axis::block,   Axis::threads,
                                                 Axis::kernel_size, Axis::grid,    Axis::print};

// Names as configs write them; each axis is described once, in runner/spec/axes.cpp.
std::string_view axis_name(Axis a);
std::optional<Axis> parse_axis(std::string_view s);

// Problem extent. gemm: C(m×n) = A(m×k)·B(k×n); transpose: m rows × n columns (k = 0);
// conv2d: an m×n image (m = n in the configs). A scalar `size: N` in a config means N in every
// dimension the kernel has.
struct ProblemSize {
  std::int64_t m = 0, n = 0, k = 0;
  friend bool operator==(const ProblemSize&, const ProblemSize&) = default;
  friend auto operator<=>(const ProblemSize&, const ProblemSize&) = default;
};
std::string to_string(const ProblemSize& s);

// CUDA thread-block shape (x fastest). For tiled_rows transpose it is TILE × BLOCK_ROWS.
struct BlockShape {
  int x = 0, y = 1;
  friend bool operator==(const BlockShape&, const BlockShape&) = default;
  friend auto operator<=>(const BlockShape&, const BlockShape&) = default;
  std::int64_t threads() const { return std::int64_t{x} * y; }
};
std::string to_string(const BlockShape& b);

}  // namespace runner
