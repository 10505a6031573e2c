// transpose tiled_rows: the classic TILE_DIM × BLOCK_ROWS shared-memory kernel, block [TILE,
// BLOCK_ROWS], both compile-time: TILE 8, 16, 32 or 64 and BLOCK_ROWS a power of two dividing it;
// padded tile (the scheme of transpose_shared_tile.cuh).
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/transpose/transpose_tiled_rows.cuh"
#include "runner/api/variant.hpp"

namespace runner::kernels::transpose {

namespace {

// The instantiation for BLOCK_ROWS `rows`: every power of two up to the tile (the divisors of a
// power-of-two tile), null for any other value. Blocks of more than 1024 threads (64 × 32) are
// compiled too and then refused by require_launchable with the device's limit.
template <typename T, int kTile, int kRows = 1>
TiledRowsKernel<T> tiled_rows_for(int rows) {
  if (rows == kRows) return tiled_rows_kernel<T, kTile, kRows>;
  if constexpr (kRows < kTile) return tiled_rows_for<T, kTile, kRows * 2>(rows);
  return nullptr;
}

template <typename T>
class TiledRows final : public CudaTranspose<T> {
 public:
  TiledRows(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaTranspose<T>(point, std::move(problem), launch(point)),
        kernel_(kernel_for(*point.block)),
        grid_(tile_grid(this->n(), this->block_.x, this->m(), this->block_.x)) {}

  void run() override {
    this->note_launch(dim3(grid_.blocks), this->block_dim());
    kernel_<<<grid_.blocks, this->block_dim(), shared_bytes(this->block_), this->stream()>>>(
        this->in_.data(), this->out_.data(), this->m(), this->n(), grid_.tiles_x);
    RUNNER_CUDA_CHECK_LAUNCH();
  }

 private:
  using Kernel = TiledRowsKernel<T>;

  // The kernel of a block [TILE, BLOCK_ROWS]; PointInvalid for shapes that are not compiled in.
  static Kernel kernel_for(const BlockShape& block) {
    Kernel kernel = nullptr;
    switch (block.x) {
      case 8:
        kernel = tiled_rows_for<T, 8>(block.y);
        break;
      case 16:
        kernel = tiled_rows_for<T, 16>(block.y);
        break;
      case 32:
        kernel = tiled_rows_for<T, 32>(block.y);
        break;
      case 64:
        kernel = tiled_rows_for<T, 64>(block.y);
        break;
      default:
        throw PointInvalid("tiled_rows is compiled for TILE (block.x) 8, 16, 32 or 64, not " +
                           std::to_string(block.x));
    }
    if (!kernel)
      throw PointInvalid("block " + std::to_string(block.x) + "x" + std::to_string(block.y) +
                         ": BLOCK_ROWS (block.y) must divide TILE (block.x), so that every "
                         "thread moves TILE/BLOCK_ROWS elements");
    return kernel;
  }
  static std::size_t shared_bytes(const BlockShape& block) {
    return tiled_rows_shared_bytes<T>(block.x);
  }
  static KernelLaunch launch(const Point& point) {
    return {reinterpret_cast<const void*>(kernel_for(*point.block)), shared_bytes(*point.block)};
  }

  Kernel kernel_;
  TileGrid grid_;
};

}  // namespace

RUNNER_FACTORY(tiled_rows, by_dtype<TiledRows>);

}  // namespace runner::kernels::transpose
