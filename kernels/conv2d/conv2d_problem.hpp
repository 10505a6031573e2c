#pragma once
// conv2d problem: one m×n single-channel image convolved with a ks×ks filter (ks odd), zero
// padding, output the size of the input. Strictly this is a cross-correlation, as in seed 001 and
// in every deep-learning "convolution": the filter is not flipped,
//   out[i][j] = Σ_{a,b < ks} in[i + a − r][j + b − r] · w[a][b],   r = ks / 2,
// where terms outside the image are zero. Inputs are random in [-1, 1) from the seed (image =
// stream 0, filter = stream 1 of kernels/common/random_values.hpp); the reference is the same sum
// in double over exactly the values the variants see. Two sides, each built only when a point
// needs it: the host side for CPU points, the device side (conv2d_device_reference.hpp) for GPU
// points. The filter is small and always on the host.
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/common/host_array.hpp"
#include "kernels/common/lazy_host_data.hpp"
#include "runner/api/point.hpp"
#include "runner/api/workload.hpp"

namespace runner::kernels::conv2d {

// Largest filter the runner accepts (the config checks kernel_size ≤ 31); its 961 weights (3.8 KB
// in float) fit the 64 KiB of CUDA constant memory with room to spare.
inline constexpr int kMaxKernelSize = 31;

// The host side: the image, the filter and the reference in host memory.
template <typename T>
struct Conv2dHostData {
  std::int64_t m = 0, n = 0;      // image rows and columns
  int ks = 0;                     // filter side, odd
  HostArray<T> input;             // m×n, row-major
  HostArray<T> weights;           // ks×ks, row-major
  std::vector<double> reference;  // m×n in double
};

template <typename T>
struct Conv2dProblem final : Problem {
  std::int64_t m = 0, n = 0;
  int ks = 0;
  std::uint64_t seed = 0;
  HostArray<T> weights;                   // ks×ks, row-major
  const Conv2dHostData<T>& host() const;  // built on the first call

 private:
  LazyHostData<Conv2dHostData<T>> host_;
};

std::shared_ptr<const Problem> make_problem(const Point& point, std::uint64_t seed);

// 2·ks² flops per output (a multiply and an add per filter tap, border taps included, as if the
// padding were real); the image read once, the filter once, the output written once.
double flops(const Point& point);
double bytes(const Point& point);
std::int64_t reduction_length(const Point& point);

}  // namespace runner::kernels::conv2d
