// transpose naive_row: one thread per element, no shared memory, any 2-D block; threads along x
// walk an input row, so the reads are coalesced and the writes strided (m elements apart).
#include <cstdint>

#include "kernels/transpose/transpose_cuda_workload.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::transpose {

namespace {

// Threads along x walk an input row: reads coalesced, writes m elements apart.
template <typename T>
__global__ void naive_row_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t m,
                                 std::int64_t n, unsigned tiles_x) {
  const std::int64_t col = std::int64_t{blockIdx.x % tiles_x} * blockDim.x + threadIdx.x;
  const std::int64_t row = std::int64_t{blockIdx.x / tiles_x} * blockDim.y + threadIdx.y;
  if (row < m && col < n) out[col * m + row] = in[row * n + col];
}

template <typename T>
class NaiveRow final : public CudaTranspose<T> {
 public:
  NaiveRow(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaTranspose<T>(point, std::move(problem),
                         {reinterpret_cast<const void*>(&naive_row_kernel<T>), 0}),
        grid_(tile_grid(this->n(), this->block_.x, this->m(), this->block_.y)) {}
  void run() override {
    this->note_launch(dim3(grid_.blocks), this->block_dim());
    naive_row_kernel<T><<<grid_.blocks, this->block_dim(), 0, this->stream()>>>(
        this->in_.data(), this->out_.data(), this->m(), this->n(), grid_.tiles_x);
    RUNNER_CUDA_CHECK_LAUNCH();
  }

 private:
  TileGrid grid_;
};

}  // namespace

RUNNER_FACTORY(naive_row, by_dtype<NaiveRow>);

}  // namespace runner::kernels::transpose
