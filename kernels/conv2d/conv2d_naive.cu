// conv2d naive: one thread per output, every tap read from global memory (through L1), the filter
// in constant memory. Outputs within r = ks/2 of the border take a slower path whose filter ranges
// are clipped to the image.
#include <array>
#include <cstdint>
#include <utility>

#include "kernels/conv2d/conv2d_constant_filter.cuh"
#include "runner/api/variant.hpp"

namespace runner::kernels::conv2d {

namespace {

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

using NaiveKernel = void (*)(const float*, float*, int, int);

// One instance per odd filter side 1, 3, ..., kMaxKernelSize, indexed by ks / 2.
template <int... I>
constexpr std::array<NaiveKernel, sizeof...(I)> naive_kernels(std::integer_sequence<int, I...>) {
  return {&conv2d_naive<2 * I + 1>...};
}
NaiveKernel naive_kernel(int ks) {
  return naive_kernels(KernelSides{})[kernel_index(ks)];
}

class Naive final : public CudaConv2d {
 public:
  Naive(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaConv2d(point, std::move(problem),
                   reinterpret_cast<const void*>(naive_kernel(*point.kernel_size)), 0),
        kernel_(naive_kernel(p_.ks)) {}
  void run() override {
    note_launch(grid(), block());
    kernel_<<<grid(), block(), 0, stream()>>>(in_.data(), out_.data(), m(), n());
    RUNNER_CUDA_CHECK_LAUNCH();
  }

 private:
  NaiveKernel kernel_;
};

}  // namespace

RUNNER_FACTORY(naive, make_workload<Naive>);

}  // namespace runner::kernels::conv2d
