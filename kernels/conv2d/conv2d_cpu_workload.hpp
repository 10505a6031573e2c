#pragma once
// The base of the CPU conv2d variants: the zero-padded cross-correlation of conv2d_problem.hpp,
// the output a host array compared with the problem's double reference (its host side).
#include <cstddef>
#include <memory>

#include "kernels/common/cpu_workload.hpp"
#include "kernels/conv2d/conv2d_problem.hpp"
#include "runner/api/point.hpp"
#include "runner/api/verification.hpp"

namespace runner::kernels::conv2d {

template <typename T>
class CpuConv2d : public ArrayOutputWorkload<T> {
 public:
  CpuConv2d(const Point& point, std::shared_ptr<const Problem> problem)
      : ArrayOutputWorkload<T>(
            static_cast<std::size_t>(point.size->m * point.size->n), host_data(*problem).reference,
            tolerance_for(*point.dtype, Precision::native, reduction_length(point))),
        problem_(std::move(problem)),
        p_(host_data(*problem_)) {}

 protected:
  static const Conv2dHostData<T>& host_data(const Problem& problem) {
    return static_cast<const Conv2dProblem<T>&>(problem).host();
  }

  std::shared_ptr<const Problem> problem_;  // keeps the inputs alive
  const Conv2dHostData<T>& p_;              // m, n, ks, the image, the weights, the reference
};

}  // namespace runner::kernels::conv2d
