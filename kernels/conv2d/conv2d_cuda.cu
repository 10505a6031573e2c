// CUDA conv2d variants, float. Both read the filter from __constant__ memory: every thread of a
// warp reads the same tap at the same time, which the constant cache serves as one broadcast.
//   naive   one thread per output, every tap read from global memory (through L1). Outputs within
//           r = ks/2 of the border take a slower path whose filter ranges are clipped to the image.
//   shared  the block's input tile plus a halo of r on each side is loaded cooperatively into
//           shared memory (zeros outside the image), then each thread sums its ks² taps from
//           shared memory with no border test at all.
// Any image size works: partial blocks at the right and bottom edges are guarded, and block rows
// beyond the grid's y limit are covered by a loop over tiles.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <string>
#include <utility>

#include "kernels/common/host_array.hpp"
#include "kernels/conv2d/conv2d_cuda.hpp"
#include "kernels/conv2d/conv2d_problem.hpp"
#include "runner/api/cuda/cuda_workload.hpp"
#include "runner/api/cuda/device_buffer.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/verification.hpp"

namespace runner::kernels::conv2d {

namespace {

// The filter of the point being measured, row-major ks×ks. One copy per process: points run one
// at a time and each workload uploads its filter in its constructor, on its own stream, before its
// first kernel.
__constant__ float c_weights[kMaxKernelSize * kMaxKernelSize];

// gridDim.y is limited to 65535; taller images loop over block rows.
constexpr unsigned kMaxGridY = 65535;

// The kernels are templates on the filter side KS (odd, 1..31, one instance each): the tap loops
// unroll completely, so each tap is one load and one FFMA whose weight operand is read straight
// from the constant bank, with no loop counter, no index arithmetic and no LDC per tap.

template <int KS>
__global__ void conv2d_naive(const float* __restrict__ in, float* __restrict__ out, int m, int n) {
  constexpr int r = KS / 2;
  const int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (j >= n) return;
  const bool columns_inside = j >= r && j < n - r;
  const int rows_per_grid = static_cast<int>(gridDim.y * blockDim.y);
  for (int i = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); i < m; i += rows_per_grid) {
    float sum = 0.0f;
    if (columns_inside && i >= r && i < m - r) {
      // Every tap inside the image: the unrolled path.
      const float* corner = in + static_cast<std::int64_t>(i - r) * n + (j - r);  // tap (0, 0)
#pragma unroll
      for (int a = 0; a < KS; ++a) {
        const float* p = corner + static_cast<std::int64_t>(a) * n;
#pragma unroll
        for (int b = 0; b < KS; ++b) sum += p[b] * c_weights[a * KS + b];
      }
    } else {
      // Within r of the border: the filter rows and columns that land inside the image, in the
      // same (a, b) order, so both paths round alike.
      const int a0 = max(0, r - i), a1 = min(KS, m - i + r);
      const int b0 = max(0, r - j), b1 = min(KS, n - j + r);
      for (int a = a0; a < a1; ++a) {
        // Index of the tap (a, 0), whose column j − r may be left of the image; b ≥ b0 is not.
        const std::int64_t row = static_cast<std::int64_t>(i + a - r) * n + (j - r);
        for (int b = b0; b < b1; ++b) sum += in[row + b] * c_weights[a * KS + b];
      }
    }
    out[static_cast<std::int64_t>(i) * n + j] = sum;
  }
}

// Shared-memory row pitch (floats) of a tile for blocks blockDim.x wide: at least blockDim.x + 2r,
// and congruent to blockDim.x modulo the 32 banks. Thread (tx, ty) reads word
// ty·pitch + tx + offset = tid + ty·(pitch − blockDim.x) + offset, so a warp's 32 consecutive
// thread ids hit 32 different banks whatever the block shape: no bank conflicts.
int tile_pitch(int block_x, int r) {
  return block_x + (2 * r + 31) / 32 * 32;
}

template <int KS>
__global__ void conv2d_shared(const float* __restrict__ in, float* __restrict__ out, int m, int n,
                              int pitch) {
  extern __shared__ float tile[];  // (blockDim.y + 2r) rows of `pitch` floats
  constexpr int r = KS / 2;
  const int bx = static_cast<int>(blockDim.x), by = static_cast<int>(blockDim.y);
  const int tx0 = static_cast<int>(threadIdx.x), ty0 = static_cast<int>(threadIdx.y);
  const int tile_w = bx + 2 * r, tile_h = by + 2 * r;
  const int j = static_cast<int>(blockIdx.x) * bx + tx0;
  const int col0 = static_cast<int>(blockIdx.x) * bx - r;  // image column of tile column 0
  // The loop condition depends on the block only, so every thread reaches each __syncthreads().
  for (int tile_y = static_cast<int>(blockIdx.y); tile_y * by < m;
       tile_y += static_cast<int>(gridDim.y)) {
    const int row0 = tile_y * by - r;  // image row of tile row 0
    // Cooperative load: the tile is larger than the block, so each thread strides over it.
    for (int ty = ty0; ty < tile_h; ty += by) {
      const int x = row0 + ty;
      const bool row_inside = x >= 0 && x < m;
      for (int tx = tx0; tx < tile_w; tx += bx) {
        const int y = col0 + tx;
        tile[ty * pitch + tx] =
            row_inside && y >= 0 && y < n ? in[static_cast<std::int64_t>(x) * n + y] : 0.0f;
      }
    }
    __syncthreads();
    const int i = tile_y * by + ty0;
    if (i < m && j < n) {
      const float* corner = tile + ty0 * pitch + tx0;  // tap (0, 0)
      float sum = 0.0f;
#pragma unroll
      for (int a = 0; a < KS; ++a) {
        const float* t = corner + a * pitch;
#pragma unroll
        for (int b = 0; b < KS; ++b) sum += t[b] * c_weights[a * KS + b];
      }
      out[static_cast<std::int64_t>(i) * n + j] = sum;
    }
    __syncthreads();  // everyone is done with this tile before the next one overwrites it
  }
}

using NaiveKernel = void (*)(const float*, float*, int, int);
using SharedKernel = void (*)(const float*, float*, int, int, int);

// One instance per odd filter side 1, 3, ..., kMaxKernelSize, indexed by ks / 2.
template <int... I>
constexpr std::array<NaiveKernel, sizeof...(I)> naive_kernels(std::integer_sequence<int, I...>) {
  return {&conv2d_naive<2 * I + 1>...};
}
template <int... I>
constexpr std::array<SharedKernel, sizeof...(I)> shared_kernels(std::integer_sequence<int, I...>) {
  return {&conv2d_shared<2 * I + 1>...};
}
using KernelSides = std::make_integer_sequence<int, kMaxKernelSize / 2 + 1>;

std::size_t kernel_index(int ks) {
  if (ks < 1 || ks > kMaxKernelSize || ks % 2 == 0)
    throw PointInvalid("the CUDA conv2d kernels exist for odd kernel_size 1.." +
                       std::to_string(kMaxKernelSize) + ", not " + std::to_string(ks));
  return static_cast<std::size_t>(ks / 2);
}
NaiveKernel naive_kernel(int ks) {
  return naive_kernels(KernelSides{})[kernel_index(ks)];
}
SharedKernel shared_kernel(int ks) {
  return shared_kernels(KernelSides{})[kernel_index(ks)];
}

// Device copies of the image and the output, the filter in constant memory, and the host copy of
// the output that verify() compares with the reference.
class CudaConv2d : public cuda::CudaWorkload {
 public:
  // `kernel` and `shared_bytes` are what run() launches: checked before anything is allocated.
  CudaConv2d(const Point& point, std::shared_ptr<const Problem> problem, const void* kernel,
             std::size_t shared_bytes)
      : problem_(std::move(problem)),
        p_(static_cast<const Conv2dProblem<float>&>(*problem_)),
        block_(*point.block),
        shared_bytes_(shared_bytes),
        tolerance_(tolerance_for(Dtype::f32, Precision::native, reduction_length(point))) {
    if (p_.m > INT_MAX || p_.n > INT_MAX)
      throw PointInvalid("the CUDA conv2d kernels index rows and columns with int: at most " +
                         std::to_string(INT_MAX) + " per side");
    cuda::require_launchable(block_, shared_bytes_, kernel);
    in_ = cuda::DeviceBuffer<float>(p_.input.size());
    out_ = cuda::DeviceBuffer<float>(p_.input.size());
    host_out_ = HostArray<float>(p_.input.size());
    h2d_ms_ = time_copy([&] {
      in_.copy_from_host(p_.input.span(), stream());
      RUNNER_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_weights, p_.weights.data(),
                                                p_.weights.size() * sizeof(float), 0,
                                                cudaMemcpyHostToDevice, stream()));
    });
  }

  void poison_output() override { out_.poison(stream()); }

  Verification verify() override {
    d2h_ms_ = time_copy([&] { out_.copy_to_host(host_out_.span(), stream()); });
    return compare_with_reference<float>(host_out_.span(), p_.reference, tolerance_);
  }

 protected:
  dim3 block() const { return dim3(block_.x, block_.y); }
  dim3 grid() const {
    const auto blocks_x = (p_.n + block_.x - 1) / block_.x;
    const auto blocks_y = (p_.m + block_.y - 1) / block_.y;
    return dim3(static_cast<unsigned>(blocks_x),
                static_cast<unsigned>(std::min<std::int64_t>(blocks_y, kMaxGridY)));
  }
  int m() const { return static_cast<int>(p_.m); }
  int n() const { return static_cast<int>(p_.n); }

  std::shared_ptr<const Problem> problem_;  // keeps the inputs and the reference alive
  const Conv2dProblem<float>& p_;
  BlockShape block_;
  std::size_t shared_bytes_;
  double tolerance_;
  cuda::DeviceBuffer<float> in_, out_;
  HostArray<float> host_out_;
};

class Naive final : public CudaConv2d {
 public:
  Naive(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaConv2d(point, std::move(problem),
                   reinterpret_cast<const void*>(naive_kernel(*point.kernel_size)), 0),
        kernel_(naive_kernel(p_.ks)) {}
  void run() override {
    kernel_<<<grid(), block(), 0, stream()>>>(in_.data(), out_.data(), m(), n());
    RUNNER_CUDA_CHECK_LAUNCH();
  }

 private:
  NaiveKernel kernel_;
};

class SharedTile final : public CudaConv2d {
 public:
  SharedTile(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaConv2d(point, std::move(problem),
                   reinterpret_cast<const void*>(shared_kernel(*point.kernel_size)),
                   tile_bytes(*point.block, *point.kernel_size)),
        kernel_(shared_kernel(p_.ks)),
        pitch_(tile_pitch(block_.x, p_.ks / 2)) {}
  void run() override {
    kernel_<<<grid(), block(), shared_bytes_, stream()>>>(in_.data(), out_.data(), m(), n(),
                                                          pitch_);
    RUNNER_CUDA_CHECK_LAUNCH();
  }

 private:
  static std::size_t tile_bytes(const BlockShape& block, int ks) {
    const int r = ks / 2;
    return static_cast<std::size_t>(block.y + 2 * r) *
           static_cast<std::size_t>(tile_pitch(block.x, r)) * sizeof(float);
  }
  SharedKernel kernel_;
  int pitch_;
};

}  // namespace

std::unique_ptr<Workload> make_naive(const Point& point, std::shared_ptr<const Problem> problem) {
  return std::make_unique<Naive>(point, std::move(problem));
}

std::unique_ptr<Workload> make_shared_tile(const Point& point,
                                           std::shared_ptr<const Problem> problem) {
  return std::make_unique<SharedTile>(point, std::move(problem));
}

}  // namespace runner::kernels::conv2d
