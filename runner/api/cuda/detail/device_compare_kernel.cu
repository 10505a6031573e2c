// The comparison kernel of compare_on_device. Device code only; nothing here may include fmt.
#include <cmath>

#include "runner/api/cuda/detail/device_compare.hpp"

namespace runner::cuda::detail {

namespace {

constexpr int kThreads = 256;

// Block b compares the chunk [b·chunk, (b+1)·chunk), its threads strided through it, then reduces
// to one partial that keeps the first index of the largest error and of the first non-finite
// output, as the host's serial comparison reports them.
template <typename T, typename R>
__global__ void __launch_bounds__(kThreads) compare(const T* out, const R* ref, std::size_t count,
                                                    std::size_t chunk, ComparePartial* partials) {
  const std::size_t begin = blockIdx.x * chunk;
  const std::size_t end = begin + chunk < count ? begin + chunk : count;
  double ref_max = 0, err_max = 0;
  unsigned long long err_at = count, nan_count = 0, first_nan = count;
  for (std::size_t i = begin + threadIdx.x; i < end; i += kThreads) {
    const double r = static_cast<double>(ref[i]);
    ref_max = fmax(ref_max, fabs(r));
    const double o = static_cast<double>(out[i]);
    if (!isfinite(o)) {
      if (nan_count++ == 0) first_nan = i;
      continue;
    }
    const double e = fabs(o - r);
    if (e > err_max || err_at == count) {  // the first finite element, then strictly larger
      err_max = e;
      err_at = i;
    }
  }
  __shared__ ComparePartial part[kThreads];
  part[threadIdx.x] = {ref_max, err_max, err_at, nan_count, first_nan};
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (static_cast<int>(threadIdx.x) < stride) {
      ComparePartial& a = part[threadIdx.x];
      const ComparePartial& b = part[threadIdx.x + stride];
      a.ref_max = fmax(a.ref_max, b.ref_max);
      if (b.err_max > a.err_max || (b.err_max == a.err_max && b.err_at < a.err_at)) {
        a.err_max = b.err_max;
        a.err_at = b.err_at;
      }
      a.nan_count += b.nan_count;
      if (b.first_nan < a.first_nan) a.first_nan = b.first_nan;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = part[0];
}

}  // namespace

int compare_blocks(std::size_t count) {
  // Enough blocks to fill an H100 several times over at large sizes, few at small ones.
  const std::size_t per_block = std::size_t{kThreads} * 64;
  const std::size_t blocks = (count + per_block - 1) / per_block;
  return static_cast<int>(blocks < 1 ? 1 : (blocks > 2048 ? 2048 : blocks));
}

template <typename T, typename R>
void launch_compare(const T* out, const R* ref, std::size_t count, ComparePartial* partials,
                    int blocks, cudaStream_t stream) {
  const std::size_t chunk = (count + blocks - 1) / blocks;
  compare<T, R><<<blocks, kThreads, 0, stream>>>(out, ref, count, chunk, partials);
}

template void launch_compare(const float*, const double*, std::size_t, ComparePartial*, int,
                             cudaStream_t);
template void launch_compare(const double*, const double*, std::size_t, ComparePartial*, int,
                             cudaStream_t);
template void launch_compare(const float*, const float*, std::size_t, ComparePartial*, int,
                             cudaStream_t);

}  // namespace runner::cuda::detail
