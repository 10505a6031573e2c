// transpose wrong_tile (tests/gpu/test_plugins.cpp): examples/own-kernel/my_tile.cu with an
// off-by-one in the write loop, which leaves the last row of every tile unwritten. A fast wrong
// kernel: the runner must record it failed ("verification failed"), not fast.
#include <cstdint>

#include "kernels/transpose/transpose_cuda_workload.hpp"
#include "runner/api/registry.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::transpose {

namespace {

constexpr int kTile = 32, kRows = 8;

template <typename T>
__global__ void wrong_tile_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t m,
                               std::int64_t n, unsigned tiles_x) {
  __shared__ T tile[kTile][kTile + 1];
  const std::int64_t row0 = std::int64_t{blockIdx.x / tiles_x} * kTile;
  const std::int64_t col0 = std::int64_t{blockIdx.x % tiles_x} * kTile;
  const int x = static_cast<int>(threadIdx.x), y = static_cast<int>(threadIdx.y);
  for (int r = y; r < kTile; r += kRows)  // read rows of the tile (coalesced)
    if (row0 + r < m && col0 + x < n) tile[r][x] = in[(row0 + r) * n + col0 + x];
  __syncthreads();
  for (int r = y; r < kTile - 1; r += kRows)  // the bug: one row short
    if (col0 + r < n && row0 + x < m) out[(col0 + r) * m + row0 + x] = tile[x][r];
}

template <typename T>
class WrongTile final : public CudaTranspose<T> {
 public:
  WrongTile(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaTranspose<T>(point, std::move(problem),
                         {reinterpret_cast<const void*>(&wrong_tile_kernel<T>), 0,
                          BlockShape{kTile, kRows}}),
        grid_(tile_grid(this->n(), kTile, this->m(), kTile)) {}

  void run() override {
    this->note_launch(dim3(grid_.blocks), this->block_dim());
    wrong_tile_kernel<T><<<grid_.blocks, this->block_dim(), 0, this->stream()>>>(
        this->in_.data(), this->out_.data(), this->m(), this->n(), grid_.tiles_x);
    RUNNER_CUDA_CHECK_LAUNCH();
  }

 private:
  TileGrid grid_;
};

}  // namespace

RUNNER_FACTORY(wrong_tile, by_dtype<WrongTile>);
RUNNER_CUDA_VARIANT(transpose, wrong_tile,
                    {.description = "test: misses the last row of each tile"});

}  // namespace runner::kernels::transpose
