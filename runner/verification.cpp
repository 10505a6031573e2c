#include "runner/verification.hpp"

#include <algorithm>
#include <limits>

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
  double ref_max = 0.0, err_max = 0.0;
  std::size_t bad_index = 0, nan_count = 0, first_nan = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) ref_max = std::max(ref_max, std::abs(ref[i]));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double o = static_cast<double>(out[i]);
    if (!std::isfinite(o)) {
      if (nan_count++ == 0) first_nan = i;
      continue;
    }
    const double e = std::abs(o - ref[i]);
    if (e > err_max) {
      err_max = e;
      bad_index = i;
    }
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
                            v.max_rel_err, tolerance, bad_index, static_cast<double>(out[bad_index]),
                            ref[bad_index]);
  return v;
}

template Verification compare_with_reference<float>(std::span<const float>,
                                                    std::span<const double>, double);
template Verification compare_with_reference<double>(std::span<const double>,
                                                     std::span<const double>, double);

}  // namespace runner
