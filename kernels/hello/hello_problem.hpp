#pragma once
// The hello kernel has no input data and no reference output: what it must produce (one record
// per thread of the launch) follows from the point's grid and block alone, and its workload
// verifies that itself. The executor still builds a Problem per point, so here is an empty one.
#include <cstdint>
#include <memory>

#include "runner/api/point.hpp"
#include "runner/api/workload.hpp"

namespace runner::kernels::hello {

struct HelloProblem final : Problem {};

inline std::shared_ptr<const Problem> make_problem(const Point&, std::uint64_t) {
  return std::make_shared<HelloProblem>();
}

}  // namespace runner::kernels::hello
