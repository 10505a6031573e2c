#pragma once
#include <cmath>
#include <cstdint>
#include <span>
#include <string>

#include "runner/api/dtype.hpp"

namespace runner {

// Outcome of comparing a point's output with its reference.
struct Verification {
  bool passed = false;
  // max_i |out_i - ref_i| / max_i |ref_i| (a normwise relative error: elementwise relative error is
  // meaningless where the reference crosses zero). NaN anywhere in the output makes it infinite.
  double max_rel_err = 0.0;
  double tolerance = 0.0;
  std::string message;  // why it failed, empty when it passed
};

// Unit roundoff of the arithmetic a variant performs.
double unit_roundoff(Dtype dtype, Precision precision);

// Tolerance for a result that sums `reduction_length` products per element (k for gemm, ks² for
// conv2d; 0 for data movement, which must be exact: tolerance 0). A single product (k = 1) still
// rounds once, so it gets 8 units of roundoff, not 0. Rounding errors of a sum of n
// random terms grow like sqrt(n); the factor 8 leaves room for the accumulation order of tiled or
// vendor code. tf32 error is dominated by the rounding of the inputs and does not grow with n.
double tolerance_for(Dtype dtype, Precision precision, std::int64_t reduction_length);

// Compares an output of any element type with a reference held in double.
template <typename T>
Verification compare_with_reference(std::span<const T> out, std::span<const double> ref,
                                    double tolerance);

}  // namespace runner
