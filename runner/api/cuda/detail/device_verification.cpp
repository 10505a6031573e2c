// Host side of runner/api/cuda/device_verification.hpp: the reduction of the comparison's partials
// into a Verification (with fmt, which .cu files avoid).
#include "runner/api/cuda/device_verification.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/cuda/detail/device_compare.hpp"

namespace runner::cuda {

template <typename T, typename R>
Verification compare_on_device(const T* out, const R* ref, std::size_t count, double tolerance,
                               cudaStream_t stream) {
  Verification v;
  v.tolerance = tolerance;
  const int blocks = detail::compare_blocks(count);
  detail::ComparePartial* partials = nullptr;
  RUNNER_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&partials),
                                    sizeof(detail::ComparePartial) * blocks, stream));
  std::vector<detail::ComparePartial> host(static_cast<std::size_t>(blocks));
  detail::launch_compare(out, ref, count, partials, blocks, stream);
  RUNNER_CUDA_CHECK_LAUNCH();
  RUNNER_CUDA_CHECK(cudaMemcpyAsync(host.data(), partials, sizeof(detail::ComparePartial) * blocks,
                                    cudaMemcpyDeviceToHost, stream));
  RUNNER_CUDA_CHECK(cudaFreeAsync(partials, stream));
  RUNNER_CUDA_CHECK(cudaStreamSynchronize(stream));

  // Blocks hold consecutive chunks: merged in block order, the first index wins ties, as serially.
  double ref_max = 0, err_max = 0;
  std::size_t err_at = 0, nan_count = 0, first_nan = count;
  bool have_err = false;
  for (const auto& p : host) {
    ref_max = std::max(ref_max, p.ref_max);
    if (p.err_at < count && (!have_err || p.err_max > err_max)) {
      err_max = p.err_max;
      err_at = p.err_at;
      have_err = true;
    }
    nan_count += p.nan_count;
    first_nan = std::min<std::size_t>(first_nan, p.first_nan);
  }
  if (nan_count > 0) {
    v.max_rel_err = std::numeric_limits<double>::infinity();
    v.message = fmt::format("{} of {} output elements not written or not finite (first at {})",
                            nan_count, count, first_nan);
    return v;
  }
  v.max_rel_err = ref_max > 0 ? err_max / ref_max : err_max;
  v.passed = v.max_rel_err <= tolerance;
  if (!v.passed) {
    T out_value{};
    R ref_value{};
    RUNNER_CUDA_CHECK(cudaMemcpy(&out_value, out + err_at, sizeof(T), cudaMemcpyDeviceToHost));
    RUNNER_CUDA_CHECK(cudaMemcpy(&ref_value, ref + err_at, sizeof(R), cudaMemcpyDeviceToHost));
    v.message = fmt::format("max relative error {:.3g} > tolerance {:.3g} (element {}: {} vs {})",
                            v.max_rel_err, tolerance, err_at, static_cast<double>(out_value),
                            static_cast<double>(ref_value));
  }
  return v;
}

template Verification compare_on_device(const float*, const double*, std::size_t, double,
                                        cudaStream_t);
template Verification compare_on_device(const double*, const double*, std::size_t, double,
                                        cudaStream_t);
template Verification compare_on_device(const float*, const float*, std::size_t, double,
                                        cudaStream_t);

}  // namespace runner::cuda
