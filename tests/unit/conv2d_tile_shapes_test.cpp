// The tiles of conv2d `shared_reg` (kernels/conv2d/conv2d_shared_reg_tiles.hpp): their geometry,
// and which narrow tile shapes an image is offered beside the 128 × 32 tiles (a shape offered is
// then timed on the GPU; these tests need none).
#include <gtest/gtest.h>

#include <cstdint>
#include <iterator>
#include <set>
#include <string>

#include "kernels/conv2d/conv2d_shared_reg_tiles.hpp"

namespace runner::kernels::conv2d::shared_reg {
namespace {

std::set<std::string> offered(int ks, std::int64_t m, std::int64_t n) {
  std::set<std::string> names;
  for (const TileShape& shape : narrow_shapes(ks, m, n)) names.insert(shape.name);
  return names;
}

// Pixels a w × h tile computes over an m × n image, counted independently of the header: whole
// tiles, with one tile column more where rows are shifted (n % 4 != 0) and the last 3 columns
// would spill past the tiles.
std::int64_t pixels(std::int64_t m, std::int64_t n, std::int64_t w, std::int64_t h) {
  const std::int64_t shift = n % 4 ? 3 : 0;
  return (n + shift + w - 1) / w * w * ((m + h - 1) / h * h);
}

TEST(Conv2dTileShapes, EveryShapeIsABlockOf256ThreadsWhoseRowsBlockYApartShareTheirShift) {
  for (const TileShape& shape : {kWideTiles, kTallTiles, kFlatTiles}) {
    SCOPED_TRACE(shape.name);
    EXPECT_EQ(shape.bx * block_y(shape.bx), kThreads);
    EXPECT_EQ(block_y(shape.bx) % 4, 0);             // the copies step BY rows with one shift
    EXPECT_EQ(tile_height(shape.bx, kRows) % 4, 0);  // tiles start on rows ≡ 0 (mod 4)
    EXPECT_EQ(
        std::to_string(tile_width(shape.bx)) + "x" + std::to_string(tile_height(shape.bx, kRows)),
        shape.name);
    // A tile row is BX to BX + 10 slots of 16 bytes at every filter the shape is compiled for.
    const int widest = shape.bx == kWideTiles.bx ? 31 : kMaxNarrow;
    for (int ks = 1; ks <= widest; ks += 2)
      for (int n_mod4 = 0; n_mod4 < 4; ++n_mod4) {
        const int extra = row_pitch(shape.bx, ks / 2, n_mod4) / 4 - shape.bx;
        EXPECT_GE(extra, 0) << ks << " " << n_mod4;
        EXPECT_LE(extra, 10) << ks << " " << n_mod4;
      }
  }
}

TEST(Conv2dTileShapes, ComputedPixelsAreWholeTilesWithAColumnMoreForShiftedRows) {
  for (const auto& [m, n] : {std::pair<std::int64_t, std::int64_t>{32768, 32},
                             {16, 65536},
                             {1023, 1025},
                             {1, 1},
                             {33, 126},
                             {100, 10486},
                             {2999, 33},
                             {8192, 8192},
                             // sides past INT_MAX: counted, not wrapped (the kernel rejects them)
                             {std::int64_t{3} << 31, 32},
                             {16, (std::int64_t{1} << 32) + 2}}) {
    SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n));
    EXPECT_EQ(computed_pixels(kWideTiles, m, n), pixels(m, n, 128, 32));
    EXPECT_EQ(computed_pixels(kTallTiles, m, n), pixels(m, n, 32, 128));
    EXPECT_EQ(computed_pixels(kFlatTiles, m, n), pixels(m, n, 256, 16));
  }
  // 126 % 4 == 2: the last column moves left by up to 3, past the first tile.
  EXPECT_EQ(tile_columns(kWideTiles.bx, 126, 2), 2);
  EXPECT_EQ(tile_columns(kWideTiles.bx, 128, 0), 1);
  EXPECT_EQ(tile_columns(kTallTiles.bx, 30, 2), 2);
}

TEST(Conv2dTileShapes, ANarrowShapeIsOfferedWhereItComputesAtMostNinetyPercent) {
  EXPECT_EQ(offered(7, 32768, 32), std::set<std::string>{"32x128"});  // a quarter of the pixels
  EXPECT_EQ(offered(7, 16384, 64), std::set<std::string>{"32x128"});
  EXPECT_EQ(offered(7, 65536, 48), std::set<std::string>{"32x128"});   // 64 columns for 128
  EXPECT_EQ(offered(3, 16, 65536), std::set<std::string>{"256x16"});   // half
  EXPECT_EQ(offered(5, 100, 10486), std::set<std::string>{"256x16"});  // 112 rows for 128
  EXPECT_EQ(offered(3, 40, 29), std::set<std::string>{"32x128"});      // one 32-column tile
  EXPECT_EQ(offered(7, std::int64_t{3} << 31, 32), std::set<std::string>{"32x128"});
  // 300 × 96: the 32-column tiles compute 96 × 384 = 36864 pixels, exactly 90 % of 128 × 320.
  EXPECT_EQ(pixels(300, 96, 32, 128) * 10, pixels(300, 96, 128, 32) * 9);
  EXPECT_EQ(offered(3, 300, 96), std::set<std::string>{"32x128"});
  // Neither narrow shape computes less: 100 columns are 128 in tiles of 32 too; 24 rows are 32 in
  // tiles of 16 too; square images fill the 128 × 32 tiles.
  EXPECT_EQ(offered(3, 10486, 100), std::set<std::string>{});
  EXPECT_EQ(offered(3, 24, 50001), std::set<std::string>{});
  EXPECT_EQ(offered(3, 8192, 8192), std::set<std::string>{});
  EXPECT_EQ(offered(3, 1023, 1025), std::set<std::string>{});
}

TEST(Conv2dTileShapes, TheNarrowShapesExistToKernelSizeNine) {
  EXPECT_EQ(offered(9, 32768, 32), std::set<std::string>{"32x128"});
  EXPECT_EQ(offered(11, 32768, 32), std::set<std::string>{});
  EXPECT_EQ(offered(31, 16, 65536), std::set<std::string>{});
}

TEST(Conv2dTileShapes, ShapesAreNamedAsRunnerConv2dTilesSpellsThem) {
  ASSERT_EQ(std::size(kAllShapes), 3u);
  EXPECT_EQ(std::string(kAllShapes[0].name), "128x32");
  EXPECT_EQ(kAllShapes[0].bx, kWideTiles.bx);
  EXPECT_EQ(std::string(kAllShapes[1].name), "32x128");
  EXPECT_EQ(kAllShapes[1].bx, kTallTiles.bx);
  EXPECT_EQ(std::string(kAllShapes[2].name), "256x16");
  EXPECT_EQ(kAllShapes[2].bx, kFlatTiles.bx);
}

}  // namespace
}  // namespace runner::kernels::conv2d::shared_reg
