#pragma once
// The tiles of the conv2d `shared_reg` kernels (conv2d_shared_reg.cuh): their geometry, shared by
// the kernels and the host code that sizes their launches, and which tile shapes an image is
// offered (conv2d_shared_reg.cu times those at set-up). Host-only code can include it: the unit
// tests check the choice without a GPU.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "kernels/common/host_device.hpp"

namespace runner::kernels::conv2d::shared_reg {

inline constexpr int kThreads = 256;  // a block; BX = threadIdx.x's extent, 256 / BX threadIdx.y's
inline constexpr int kCols = 4;       // output columns per thread
inline constexpr unsigned kMaxGridY = 65535;

RUNNER_HOST_DEVICE constexpr int block_y(int bx) {
  return kThreads / bx;
}
RUNNER_HOST_DEVICE constexpr int tile_width(int bx) {
  return kCols * bx;
}
RUNNER_HOST_DEVICE constexpr int halo_cols(int r) {
  return (r + 3) / 4 * 4;
}  // H
RUNNER_HOST_DEVICE constexpr int tile_height(int bx, int rows) {
  return block_y(bx) * rows;
}
// Extra floats before a tile row's halo where rows are shifted (n % 4 != 0): room for the shifts.
RUNNER_HOST_DEVICE constexpr int left_margin(int n_mod4) {
  return n_mod4 != 0 ? 4 : 0;
}
// The most an output row moves left (out_shift in conv2d_shared_reg.cuh).
RUNNER_HOST_DEVICE constexpr int max_out_shift(int n_mod4) {
  return n_mod4 != 0 ? 3 : 0;
}
// Floats of one shared tile row: the tile's columns and halos, and where rows are shifted, the
// margin and one vector for the shift.
RUNNER_HOST_DEVICE constexpr int row_pitch(int bx, int r, int n_mod4) {
  return tile_width(bx) + 2 * halo_cols(r) + 2 * left_margin(n_mod4);
}
// Floats of one shared tile: the output rows and both halos, a row_pitch each.
RUNNER_HOST_DEVICE constexpr int tile_floats(int bx, int ks, int rows, int n_mod4) {
  return (tile_height(bx, rows) + 2 * (ks / 2)) * row_pitch(bx, ks / 2, n_mod4);
}
constexpr std::size_t shared_bytes(int bx, int ks, int rows, int n_mod4) {
  return static_cast<std::size_t>(tile_floats(bx, ks, rows, n_mod4)) * sizeof(float);
}
// Tiles across a row of n floats (one more where n is within 3 of a multiple of the tile width
// and output rows are shifted: out_shift in conv2d_shared_reg.cuh), and down m rows.
// Int on the device; the host counts in std::int64_t, where a side may exceed INT_MAX before the
// kernel's checks reject it.
template <class Index>
RUNNER_HOST_DEVICE constexpr Index tile_columns(int bx, Index n, int n_mod4) {
  return (n + max_out_shift(n_mod4) + tile_width(bx) - 1) / tile_width(bx);
}
template <class Index>
RUNNER_HOST_DEVICE constexpr Index tile_rows(int bx, Index m, int rows) {
  return (m + tile_height(bx, rows) - 1) / tile_height(bx, rows);
}

// Output rows a thread: with 256 / BX threads down a block, the tile's height is 256 / BX · kRows.
inline constexpr int kRows = 4;

// A tile shape: BX threads across a tile row, its name in the record's `path` and in
// RUNNER_CONV2D_TILES.
struct TileShape {
  int bx;
  const char* path;
  const char* name;
};
inline constexpr TileShape kWideTiles{32, "registers, 32-row tiles", "128x32"};  // any image, ks
// For narrow images only, to ks = kMaxNarrow: an image 32 columns wide computes a quarter of the
// 128 × 32 tiles it would fill, one 16 rows tall a half.
inline constexpr TileShape kTallTiles{8, "registers, 32-column tiles", "32x128"};
inline constexpr TileShape kFlatTiles{64, "registers, 16-row tiles", "256x16"};
inline constexpr TileShape kNarrowShapes[] = {kTallTiles, kFlatTiles};
inline constexpr int kMaxNarrow = 9;  // the widest filter the narrow shapes are compiled for
// A narrow shape competes with the 128 × 32 tiles where it computes at most this share of their
// output pixels (tiles × tile area): a narrow tile reads more halo a pixel, which a saving of
// less than ~10 % would not pay for.
inline constexpr double kNarrowShare = 0.9;

// Every shape, in the order RUNNER_CONV2D_TILES lists their names ("128x32", "32x128", "256x16").
inline constexpr TileShape kAllShapes[] = {kWideTiles, kTallTiles, kFlatTiles};

// The output pixels the tiles of a shape compute on an m × n image: whole tiles, the image's and
// the rest.
inline std::int64_t computed_pixels(const TileShape& shape, std::int64_t m, std::int64_t n) {
  const int n_mod4 = static_cast<int>(n % 4);
  return tile_columns(shape.bx, n, n_mod4) * tile_width(shape.bx) * tile_rows(shape.bx, m, kRows) *
         tile_height(shape.bx, kRows);
}

// The narrow shapes that compute at most kNarrowShare of the 128 × 32 tiles' pixels on an m × n
// image (none where ks > kMaxNarrow).
inline std::vector<TileShape> narrow_shapes(int ks, std::int64_t m, std::int64_t n) {
  std::vector<TileShape> shapes;
  if (ks > kMaxNarrow) return shapes;
  const double limit = kNarrowShare * static_cast<double>(computed_pixels(kWideTiles, m, n));
  for (const TileShape& shape : kNarrowShapes)
    if (static_cast<double>(computed_pixels(shape, m, n)) <= limit) shapes.push_back(shape);
  return shapes;
}

}  // namespace runner::kernels::conv2d::shared_reg
