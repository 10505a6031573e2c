// conv2d_device_reference.hpp. The kernel is the host reference's sum, per output: for each
// filter row a whose image row is inside, for each tap b whose column is inside, in that order,
// out += w[a][b] · in[i + a − r][j + b − r] in double.
#include "kernels/conv2d/conv2d_device_reference.hpp"

#include <algorithm>
#include <cstdint>

#include "kernels/common/random_fill_device.hpp"
#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/cuda/device_buffer.hpp"

namespace runner::kernels::conv2d {

namespace {

__global__ void reference_kernel(const float* __restrict__ in, const float* __restrict__ w,
                                 double* __restrict__ out, std::int64_t m, std::int64_t n, int ks) {
  const std::int64_t j = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const int r = ks / 2;
  for (std::int64_t i = std::int64_t{blockIdx.y} * blockDim.y + threadIdx.y; i < m;
       i += std::int64_t{gridDim.y} * blockDim.y) {
    if (j >= n) return;
    double sum = 0;
    for (int a = 0; a < ks; ++a) {
      const std::int64_t x = i + a - r;
      if (x < 0 || x >= m) continue;
      for (int b = 0; b < ks; ++b) {
        const std::int64_t y = j + b - r;
        if (y < 0 || y >= n) continue;
        sum += static_cast<double>(w[a * ks + b]) * static_cast<double>(in[x * n + y]);
      }
    }
    out[i * n + j] = sum;
  }
}

}  // namespace

bool compute_reference_on_device(const Conv2dProblem<float>& p, double* out, cudaStream_t stream) {
  const auto pixels = static_cast<std::size_t>(p.m * p.n);
  auto image = cuda::DeviceBuffer<float>::try_allocate(pixels);
  auto weights = cuda::DeviceBuffer<float>::try_allocate(p.weights.size());
  if (!image || !weights) return false;
  fill_uniform_on_device<float>(image->data(), pixels, p.seed, 0, stream);
  RUNNER_CUDA_CHECK(cudaMemcpyAsync(weights->data(), p.weights.data(),
                                    sizeof(float) * p.weights.size(), cudaMemcpyHostToDevice,
                                    stream));
  const dim3 block(32, 8);
  const auto blocks_x = static_cast<unsigned>((p.n + block.x - 1) / block.x);
  const auto rows =
      static_cast<unsigned>(std::min<std::int64_t>((p.m + block.y - 1) / block.y, 65535));
  reference_kernel<<<dim3(blocks_x, rows), block, 0, stream>>>(image->data(), weights->data(), out,
                                                               p.m, p.n, p.ks);
  RUNNER_CUDA_CHECK_LAUNCH();
  // The scratch arrays are freed on return: wait until the kernel no longer reads them.
  RUNNER_CUDA_CHECK(cudaStreamSynchronize(stream));
  return true;
}

}  // namespace runner::kernels::conv2d
