// conv2d shared: the block's input tile plus a halo of r = ks/2 on each side is loaded
// cooperatively into shared memory (zeros outside the image), then each thread sums its ks² taps
// from shared memory with no border test at all; the filter in constant memory. The kernel is in
// conv2d_shared_tile.cuh.
#include <cstddef>
#include <memory>
#include <utility>

#include "kernels/conv2d/conv2d_constant_filter.cuh"
#include "kernels/conv2d/conv2d_shared_tile.cuh"
#include "runner/api/variant.hpp"

namespace runner::kernels::conv2d {

namespace {

class SharedTile final : public CudaConv2d {
 public:
  SharedTile(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaConv2d(point, std::move(problem),
                   reinterpret_cast<const void*>(shared_kernel(*point.kernel_size)),
                   shared_tile_bytes(*point.block, *point.kernel_size)),
        kernel_(shared_kernel(p_.ks)),
        pitch_(tile_pitch(block_.x, p_.ks / 2)) {}
  void run() override {
    note_launch(grid(), block());
    kernel_<<<grid(), block(), shared_bytes_, stream()>>>(in_.data(), out_.data(), m(), n(),
                                                          pitch_);
    RUNNER_CUDA_CHECK_LAUNCH();
  }

 private:
  SharedKernel kernel_;
  int pitch_;
};

}  // namespace

RUNNER_FACTORY(shared, make_workload<SharedTile>);

}  // namespace runner::kernels::conv2d
