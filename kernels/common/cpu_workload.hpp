#pragma once
// Base of CPU workloads whose output is one array compared with a double reference.
#include <cstdint>
#include <span>

#include "kernels/common/host_array.hpp"
#include "runner/api/verification.hpp"
#include "runner/api/workload.hpp"

namespace runner::kernels {

template <typename T>
class ArrayOutputWorkload : public Workload {
 public:
  ArrayOutputWorkload(std::size_t output_count, std::span<const double> reference, double tolerance)
      : out_(output_count), reference_(reference), tolerance_(tolerance) {
    poison<T>(out_.span());  // first touch in parallel
  }
  void poison_output() override { poison<T>(out_.span()); }
  Verification verify() override {
    return compare_with_reference<T>(out_.span(), reference_, tolerance_);
  }

 protected:
  HostArray<T> out_;
  std::span<const double> reference_;
  double tolerance_;
};

}  // namespace runner::kernels
