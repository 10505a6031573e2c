#include "runner/api/verification.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <fmt/format.h>

namespace runner {

double unit_roundoff(Dtype dtype, Precision precision) {
  if (precision == Precision::tf32) return 0x1p-11;  // 10 explicit mantissa bits
  return dtype == Dtype::f32 ? 0x1p-24 : 0x1p-53;
}

double tolerance_for(Dtype dtype, Precision precision, std::int64_t reduction_length) {
  if (reduction_length <= 0) return 0.0;  // data movement: exact
  const double u = unit_roundoff(dtype, precision);
  if (precision == Precision::tf32) return 16.0 * u;
  return 8.0 * u * std::sqrt(static_cast<double>(reduction_length));
}

template <typename T>
Verification compare_with_reference(std::span<const T> out, std::span<const double> ref,
                                    double tolerance) {
  Verification v;
  v.tolerance = tolerance;
  if (out.size() != ref.size()) {
    v.max_rel_err = std::numeric_limits<double>::infinity();
    v.message = fmt::format("output has {} elements, reference {}", out.size(), ref.size());
    return v;
  }
  // One pass, split over the OpenMP threads (an 8192² output is 67 M elements, compared twice per
  // point: single-threaded that was a large share of a point's wall time, docs/measurement.md).
  // Each thread keeps its own maxima; merged in thread order, which with a static schedule is
  // index order, so the element reported is the first with the largest error, as serially.
  struct Partial {
    double ref_max = 0.0, err_max = 0.0;
    std::size_t bad_index = 0, nan_count = 0, first_nan = 0;
  };
  const auto n = static_cast<std::int64_t>(out.size());
  const int threads = n >= (std::int64_t{1} << 16) ? omp_get_max_threads() : 1;
  std::vector<Partial> partials(static_cast<std::size_t>(threads));
#pragma omp parallel num_threads(threads)
  {
    Partial p;
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      const auto u = static_cast<std::size_t>(i);
      p.ref_max = std::max(p.ref_max, std::abs(ref[u]));
      const double o = static_cast<double>(out[u]);
      if (!std::isfinite(o)) {
        if (p.nan_count++ == 0) p.first_nan = u;
        continue;
      }
      const double e = std::abs(o - ref[u]);
      if (e > p.err_max) {
        p.err_max = e;
        p.bad_index = u;
      }
    }
    partials[static_cast<std::size_t>(omp_get_thread_num())] = p;
  }
  double ref_max = 0.0, err_max = 0.0;
  std::size_t bad_index = 0, nan_count = 0, first_nan = 0;
  for (const Partial& p : partials) {
    ref_max = std::max(ref_max, p.ref_max);
    if (p.err_max > err_max) {
      err_max = p.err_max;
      bad_index = p.bad_index;
    }
    if (p.nan_count > 0 && nan_count == 0) first_nan = p.first_nan;
    nan_count += p.nan_count;
  }
  if (nan_count > 0) {
    v.max_rel_err = std::numeric_limits<double>::infinity();
    v.message = fmt::format("{} of {} output elements not written or not finite (first at {})",
                            nan_count, out.size(), first_nan);
    return v;
  }
  v.max_rel_err = ref_max > 0 ? err_max / ref_max : err_max;
  v.passed = v.max_rel_err <= tolerance;
  if (!v.passed)
    v.message = fmt::format("max relative error {:.3g} > tolerance {:.3g} (element {}: {} vs {})",
                            v.max_rel_err, tolerance, bad_index,
                            static_cast<double>(out[bad_index]), ref[bad_index]);
  return v;
}

template Verification compare_with_reference<float>(std::span<const float>, std::span<const double>,
                                                    double);
template Verification compare_with_reference<double>(std::span<const double>,
                                                     std::span<const double>, double);

}  // namespace runner
