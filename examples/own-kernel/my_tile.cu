// transpose my_tile: the classic tiled transpose of a lab report, as a plugin. A block of 32 x 8
// threads moves a 32 x 32 tile through shared memory padded by one column (no bank conflicts);
// each thread copies four elements. The runner gives it the problem, the input on the device, the
// poisoned output, the exact reference and every column of the record (docs/own-kernel.md).
//
// The same file builds in the runner's own tree (kernels/transpose/) and as a plugin:
//   plugins: [my_tile.cu]
#include <cstdint>

#include "kernels/transpose/transpose_cuda_workload.hpp"
#include "runner/api/registry.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::transpose {

namespace {

constexpr int kTile = 32, kRows = 8;

template <typename T>
__global__ void my_tile_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t m,
                               std::int64_t n, unsigned tiles_x) {
  __shared__ T tile[kTile][kTile + 1];
  const std::int64_t row0 = std::int64_t{blockIdx.x / tiles_x} * kTile;
  const std::int64_t col0 = std::int64_t{blockIdx.x % tiles_x} * kTile;
  const int x = static_cast<int>(threadIdx.x), y = static_cast<int>(threadIdx.y);
  for (int r = y; r < kTile; r += kRows)  // read rows of the tile (coalesced)
    if (row0 + r < m && col0 + x < n) tile[r][x] = in[(row0 + r) * n + col0 + x];
  __syncthreads();
  for (int r = y; r < kTile; r += kRows)  // write its columns as rows (coalesced)
    if (col0 + r < n && row0 + x < m) out[(col0 + r) * m + row0 + x] = tile[x][r];
}

template <typename T>
class MyTile final : public CudaTranspose<T> {
 public:
  MyTile(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaTranspose<T>(
            point, std::move(problem),
            {reinterpret_cast<const void*>(&my_tile_kernel<T>), 0, BlockShape{kTile, kRows}}),
        grid_(tile_grid(this->n(), kTile, this->m(), kTile)) {}

  void run() override {
    this->note_launch(dim3(grid_.blocks), this->block_dim());
    my_tile_kernel<T><<<grid_.blocks, this->block_dim(), 0, this->stream()>>>(
        this->in_.data(), this->out_.data(), this->m(), this->n(), grid_.tiles_x);
    RUNNER_CUDA_CHECK_LAUNCH();
  }

 private:
  TileGrid grid_;
};

}  // namespace

RUNNER_FACTORY(my_tile, by_dtype<MyTile>);
RUNNER_CUDA_VARIANT(transpose, my_tile,
                    {.description = "32x32 tile padded to 33, 32x8 threads, 4 elements each"});

}  // namespace runner::kernels::transpose
