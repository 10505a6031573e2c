// The device side of kernels/common/random_fill_device.hpp: one grid-stride pass that writes each
// element once (the hash is a few dozen integer instructions per element, far under a memory
// pass's time per element on current GPUs).
#include "kernels/common/random_fill_device.hpp"

#include <algorithm>

#include "kernels/common/random_values.hpp"
#include "runner/api/cuda/cuda_check.hpp"

namespace runner::kernels {

namespace {

template <typename T, typename Out>
__global__ void fill_uniform_kernel(Out* __restrict__ out, std::uint64_t count,
                                    std::uint64_t base) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count;
       i += stride)
    out[i] = static_cast<Out>(random_value<T>(base, i));
}

}  // namespace

template <typename T, typename Out>
void fill_uniform_on_device(Out* out, std::size_t count, std::uint64_t seed, std::uint64_t stream,
                            cudaStream_t stream_handle) {
  if (count == 0) return;
  constexpr unsigned kThreads = 256;
  // A few waves of any current GPU; each thread loops over the rest.
  const std::size_t blocks = std::min<std::size_t>((count + kThreads - 1) / kThreads, 8192);
  fill_uniform_kernel<T, Out><<<static_cast<unsigned>(blocks), kThreads, 0, stream_handle>>>(
      out, count, random_stream_base(seed, stream));
  RUNNER_CUDA_CHECK_LAUNCH();
}

template void fill_uniform_on_device<float, float>(float*, std::size_t, std::uint64_t,
                                                   std::uint64_t, cudaStream_t);
template void fill_uniform_on_device<double, double>(double*, std::size_t, std::uint64_t,
                                                     std::uint64_t, cudaStream_t);
template void fill_uniform_on_device<float, double>(double*, std::size_t, std::uint64_t,
                                                    std::uint64_t, cudaStream_t);

}  // namespace runner::kernels
