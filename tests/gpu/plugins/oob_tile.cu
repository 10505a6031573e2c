// transpose oob_tile (tests/gpu/test_plugins.cpp): examples/own-kernel/my_tile.cu that also writes
// 2^32 elements past its output: an illegal address, which the runner must record as a failed
// point with the CUDA error (and compute-sanitizer's memcheck must report).
#include <cstdint>

#include "kernels/transpose/transpose_cuda_workload.hpp"
#include "runner/api/registry.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::transpose {

namespace {

constexpr int kTile = 32, kRows = 8;

template <typename T>
__global__ void oob_tile_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t m,
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
  if (blockIdx.x == 0 && threadIdx.x == 0 && threadIdx.y == 0) out[m * n + (std::int64_t{1} << 32)] = T(1);  // the bug
}

template <typename T>
class OobTile final : public CudaTranspose<T> {
 public:
  OobTile(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaTranspose<T>(point, std::move(problem),
                         {reinterpret_cast<const void*>(&oob_tile_kernel<T>), 0,
                          BlockShape{kTile, kRows}}),
        grid_(tile_grid(this->n(), kTile, this->m(), kTile)) {}

  void run() override {
    this->note_launch(dim3(grid_.blocks), this->block_dim());
    oob_tile_kernel<T><<<grid_.blocks, this->block_dim(), 0, this->stream()>>>(
        this->in_.data(), this->out_.data(), this->m(), this->n(), grid_.tiles_x);
    RUNNER_CUDA_CHECK_LAUNCH();
  }

 private:
  TileGrid grid_;
};

}  // namespace

RUNNER_FACTORY(oob_tile, by_dtype<OobTile>);
RUNNER_CUDA_VARIANT(transpose, oob_tile,
                    {.description = "test: writes 16 GiB past its output"});

}  // namespace runner::kernels::transpose
