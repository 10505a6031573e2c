#pragma once
// What the CUDA conv2d variants naive and shared share (float): the filter in __constant__
// memory, kernels templated on the filter side, and the workload base that uploads the filter (the
// image comes with conv2d_cuda_workload.hpp). Both read the filter from __constant__ memory: every
// thread of a warp reads the same tap at the same time, which the constant cache serves as one
// broadcast. Any image size works: partial blocks at the right and bottom edges are guarded, and
// block rows beyond the grid's y limit are covered by a loop over tiles.
#include "runner/api/gpu/runtime.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "kernels/conv2d/conv2d_cuda_workload.hpp"
#include "kernels/conv2d/conv2d_problem.hpp"
#include "runner/api/cuda/cuda_workload.hpp"
#include "runner/api/cuda/device_buffer.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/verification.hpp"

namespace runner::kernels::conv2d {

// gridDim.y is limited to 65535; taller images loop over block rows.
inline constexpr unsigned kMaxGridY = 65535;

// The kernels are templates on the filter side KS (odd, 1..31, one instance each): the tap loops
// unroll completely, so each tap is one load and one FFMA whose weight operand is read straight
// from the constant bank, with no loop counter, no index arithmetic and no LDC per tap. Each
// variant keeps one instance per odd filter side 1, 3, ..., kMaxKernelSize, indexed by ks / 2
// (kernel_index).
using KernelSides = std::make_integer_sequence<int, kMaxKernelSize / 2 + 1>;

inline std::size_t kernel_index(int ks) {
  if (ks < 1 || ks > kMaxKernelSize || ks % 2 == 0)
    throw PointInvalid("the CUDA conv2d kernels exist for odd kernel_size 1.." +
                       std::to_string(kMaxKernelSize) + ", not " + std::to_string(ks));
  return static_cast<std::size_t>(ks / 2);
}

// Unnamed: one copy of the filter and of the workload that fills it per translation unit that
// includes this header (no relocatable device code), so that each variant's kernels read the
// c_weights its own workload uploaded to.
namespace {

// The filter of the point being measured, row-major ks×ks. One copy per variant: points run one
// at a time and each workload uploads its filter in its constructor, on its own stream, before its
// first kernel.
__constant__ float c_weights[kMaxKernelSize * kMaxKernelSize];

// The base's image and output, the filter in this translation unit's constant memory, and the
// point's block shape.
class CudaConv2d : public CudaConv2dBase {
 public:
  // `kernel` and `shared_bytes` are what run() launches: checked before anything is allocated.
  CudaConv2d(const Point& point, std::shared_ptr<const Problem> problem, const void* kernel,
             std::size_t shared_bytes)
      : CudaConv2dBase(point, std::move(problem), kernel, *point.block, shared_bytes),
        block_(*point.block),
        shared_bytes_(shared_bytes) {
    h2d_ms_ = time_on_stream([&] {
      RUNNER_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_weights, p_.weights.data(),
                                                p_.weights.size() * sizeof(float), 0,
                                                cudaMemcpyHostToDevice, stream()));
    });
  }

 protected:
  dim3 block() const { return dim3(block_.x, block_.y); }
  dim3 grid() const {
    const auto blocks_x = (p_.n + block_.x - 1) / block_.x;
    const auto blocks_y = (p_.m + block_.y - 1) / block_.y;
    return dim3(static_cast<unsigned>(blocks_x),
                static_cast<unsigned>(std::min<std::int64_t>(blocks_y, kMaxGridY)));
  }

  BlockShape block_;
  std::size_t shared_bytes_;
};

}  // namespace

}  // namespace runner::kernels::conv2d
