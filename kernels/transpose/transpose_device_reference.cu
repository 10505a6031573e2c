// transpose_device_reference.hpp: one thread per output element, in output order (coalesced
// writes; the values are computed, not read).
#include "kernels/transpose/transpose_device_reference.hpp"

#include <algorithm>
#include <cstdint>

#include "kernels/common/random_values.hpp"
#include "runner/api/cuda/cuda_check.hpp"

namespace runner::kernels::transpose {

namespace {

template <typename T>
__global__ void expected_transpose_kernel(T* __restrict__ out, std::uint64_t m, std::uint64_t n,
                                          std::uint64_t base) {
  const std::uint64_t count = m * n, stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t o = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; o < count;
       o += stride) {
    const std::uint64_t j = o / m, i = o % m;  // out[j][i] = in[i][j]
    out[o] = random_value<T>(base, i * n + j);
  }
}

}  // namespace

template <typename T>
void expected_transpose_on_device(const TransposeProblem<T>& p, T* out, cudaStream_t stream) {
  const auto count = static_cast<std::uint64_t>(p.m * p.n);
  if (count == 0) return;
  constexpr unsigned kThreads = 256;
  const std::uint64_t blocks = std::min<std::uint64_t>((count + kThreads - 1) / kThreads, 8192);
  expected_transpose_kernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      out, static_cast<std::uint64_t>(p.m), static_cast<std::uint64_t>(p.n),
      random_stream_base(p.seed, 0));
  RUNNER_CUDA_CHECK_LAUNCH();
}

template void expected_transpose_on_device(const TransposeProblem<float>&, float*, cudaStream_t);
template void expected_transpose_on_device(const TransposeProblem<double>&, double*, cudaStream_t);

}  // namespace runner::kernels::transpose
