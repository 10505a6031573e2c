// transpose naive_col: one thread per element, no shared memory, any 2-D block; threads along x
// walk an output row (an input column), so the writes are coalesced and the reads strided (n
// elements apart).
#include <cstdint>

#include "kernels/transpose/transpose_cuda_workload.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::transpose {

namespace {

// Threads along x walk an output row (an input column): writes coalesced, reads n elements apart.
template <typename T>
__global__ void naive_col_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t m,
                                 std::int64_t n, unsigned tiles_x) {
  const std::int64_t row = std::int64_t{blockIdx.x % tiles_x} * blockDim.x + threadIdx.x;
  const std::int64_t col = std::int64_t{blockIdx.x / tiles_x} * blockDim.y + threadIdx.y;
  if (row < m && col < n) out[col * m + row] = in[row * n + col];
}

template <typename T>
class NaiveCol final : public CudaTranspose<T> {
 public:
  NaiveCol(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaTranspose<T>(point, std::move(problem),
                         {reinterpret_cast<const void*>(&naive_col_kernel<T>), 0}),
        grid_(tile_grid(this->m(), this->block_.x, this->n(), this->block_.y)) {}
  void run() override {
    this->note_launch(dim3(grid_.blocks), this->block_dim());
    naive_col_kernel<T><<<grid_.blocks, this->block_dim(), 0, this->stream()>>>(
        this->in_.data(), this->out_.data(), this->m(), this->n(), grid_.tiles_x);
    RUNNER_CUDA_CHECK_LAUNCH();
  }

 private:
  TileGrid grid_;
};

}  // namespace

RUNNER_FACTORY(naive_col, by_dtype<NaiveCol>);

}  // namespace runner::kernels::transpose
