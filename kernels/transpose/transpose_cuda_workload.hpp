#pragma once
// Base of the CUDA transpose workloads: the input generated on the device in the point's own buffer
// (timed into inputs_ms), the output poisoned before every run, and verification that compares it
// exactly with the expected output, made on the device from the seed once per problem
// (transpose_device_reference.hpp); where the device has no room for it, the output is copied back
// and compared with the host reference. Variants add their launch; every one handles any m×n
// (edge tiles are guarded).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "kernels/common/random_fill_device.hpp"
#include "kernels/transpose/transpose_device_reference.hpp"
#include "kernels/transpose/transpose_problem.hpp"
#include "runner/api/cuda/cuda_workload.hpp"
#include "runner/api/cuda/device_buffer.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/verification.hpp"

namespace runner::kernels::transpose {

// The kernels use a 1-D grid of tiles, tile (x, y) = (blockIdx.x % tiles_x, blockIdx.x / tiles_x):
// the same x-fastest order in which a 2-D grid is scheduled, without gridDim.y's limit of 65535,
// which tall matrices with short blocks would exceed.
struct TileGrid {
  unsigned tiles_x = 0;  // tiles along the fast (x) direction
  unsigned blocks = 0;   // tiles_x · tiles_y
};

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

inline TileGrid tile_grid(std::int64_t extent_x, std::int64_t tile_x, std::int64_t extent_y,
                          std::int64_t tile_y) {
  const std::int64_t tiles_x = ceil_div(extent_x, tile_x), tiles_y = ceil_div(extent_y, tile_y);
  constexpr std::int64_t kMaxBlocks = std::numeric_limits<int>::max();  // gridDim.x limit
  if (tiles_x * tiles_y > kMaxBlocks)
    throw PointInvalid("the matrix needs " + std::to_string(tiles_x * tiles_y) +
                       " blocks of this shape, beyond the grid limit of " +
                       std::to_string(kMaxBlocks) + ": use a larger block");
  return {static_cast<unsigned>(tiles_x), static_cast<unsigned>(tiles_x * tiles_y)};
}

// The kernel a variant launches and the dynamic shared memory it needs with the point's block.
// Variants without a block axis (a tuned, compile-time block) name theirs in fixed_block.
struct KernelLaunch {
  const void* kernel = nullptr;
  std::size_t shared_bytes = 0;
  std::optional<BlockShape> fixed_block = std::nullopt;
};

// The point's block, once the device is known to launch `launch` with it (PointInvalid if not).
inline BlockShape launchable_block(const Point& point, const KernelLaunch& launch) {
  const BlockShape block =
      launch.fixed_block ? *launch.fixed_block : point.block.value_or(BlockShape{32, 8});
  cuda::require_launchable(block, launch.shared_bytes, launch.kernel);
  return block;
}

template <typename T>
class CudaTranspose : public cuda::CudaWorkload {
 public:
  // The launch is checked before anything is allocated or copied, so that an impossible block
  // costs nothing.
  CudaTranspose(const Point& point, std::shared_ptr<const Problem> problem,
                const KernelLaunch& launch)
      : problem_(std::move(problem)),
        p_(static_cast<const TransposeProblem<T>&>(*problem_)),
        block_(launchable_block(point, launch)),
        in_(static_cast<std::size_t>(p_.m * p_.n)),
        out_(static_cast<std::size_t>(p_.m * p_.n)) {
    inputs_ms_ = time_on_stream(
        [&] { fill_uniform_on_device<T>(in_.data(), in_.size(), p_.seed, 0, this->stream()); });
  }

  void poison_output() override { out_.poison(stream()); }

  // Data movement is exact: tolerance 0 (tolerance_for with a reduction length of 0), against the
  // expected output in T itself.
  Verification verify() override {
    return verify_output<T>(
        out_, problem_,
        [this](T* expected, cudaStream_t s) {
          expected_transpose_on_device(p_, expected, s);
          return true;
        },
        [this] { return std::span<const double>(p_.host().reference); }, 0.0, "gpu-exact");
  }

 protected:
  std::int64_t m() const { return p_.m; }
  std::int64_t n() const { return p_.n; }
  dim3 block_dim() const {
    return dim3(static_cast<unsigned>(block_.x), static_cast<unsigned>(block_.y));
  }

  std::shared_ptr<const Problem> problem_;  // keeps the problem (and its reference) alive
  const TransposeProblem<T>& p_;
  BlockShape block_;
  cuda::DeviceBuffer<T> in_, out_;  // out_ has m·n elements whatever its shape
};

}  // namespace runner::kernels::transpose
