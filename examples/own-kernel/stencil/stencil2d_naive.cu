// stencil2d naive: one thread per grid point, a 2-D grid of blocks (the block axis): a CUDA
// variant of the family stencil2d.cpp registers, in a plugin of its own.
#include <cstdint>

#include "runner/api/registry.hpp"
#include "runner/api/variant.hpp"
#include "stencil2d.hpp"

namespace stencil2d {

namespace {

template <typename T>
__global__ void naive_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t m,
                             std::int64_t n) {
  const std::int64_t j = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::int64_t i = std::int64_t{blockIdx.y} * blockDim.y + threadIdx.y;
  if (i >= m || j >= n) return;
  const std::int64_t at = i * n + j;
  if (i == 0 || j == 0 || i == m - 1 || j == n - 1) {
    out[at] = in[at];
    return;
  }
  out[at] =
      T(kCentre) * in[at] + T(kNeighbour) * (in[at - n] + in[at + n] + in[at - 1] + in[at + 1]);
}

template <typename T>
class Naive final : public CudaStencil<T> {
 public:
  Naive(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaStencil<T>(point, std::move(problem)),
        block_(point.block.value_or(runner::BlockShape{32, 8})) {
    runner::cuda::require_launchable(block_, 0, reinterpret_cast<const void*>(&naive_kernel<T>));
    const auto bx = static_cast<unsigned>(block_.x), by = static_cast<unsigned>(block_.y);
    grid_ = dim3(static_cast<unsigned>((this->p_.n + bx - 1) / bx),
                 static_cast<unsigned>((this->p_.m + by - 1) / by));
  }

  void run() override {
    const dim3 block(static_cast<unsigned>(block_.x), static_cast<unsigned>(block_.y));
    this->note_launch(grid_, block);
    naive_kernel<T><<<grid_, block, 0, this->stream()>>>(this->in_.data(), this->out_.data(),
                                                         this->p_.m, this->p_.n);
    RUNNER_CUDA_CHECK_LAUNCH();
  }

 private:
  runner::BlockShape block_;
  dim3 grid_;
};

}  // namespace

RUNNER_FACTORY(naive, by_dtype<Naive>);
RUNNER_CUDA_VARIANT(stencil2d, naive,
                    {.axes = {runner::Axis::block},
                     .description = "one thread per point, 2-D grid"});

}  // namespace stencil2d
