#pragma once
// What a variant's source file needs beyond its workload (runner/api/workload.hpp): the factory
// its registration line names (runner/api/registry.hpp), written at the end of the file, in the
// family's namespace:
//
//   RUNNER_FACTORY(naive_2d, by_dtype<Naive2d>);     // Naive2d<float> or Naive2d<double>
//   RUNNER_FACTORY(regtile, make_workload<Regtile>);  // one class
#include <memory>
#include <utility>

#include "runner/api/dtype.hpp"
#include "runner/api/point.hpp"
#include "runner/api/workload.hpp"

namespace runner {

// W<float> or W<double>, by the point's dtype.
template <template <typename> class W>
std::unique_ptr<Workload> by_dtype(const Point& point, std::shared_ptr<const Problem> problem) {
  if (point.dtype == Dtype::f64) return std::make_unique<W<double>>(point, std::move(problem));
  return std::make_unique<W<float>>(point, std::move(problem));
}

// A workload class that is not a template over the element type.
template <class W>
std::unique_ptr<Workload> make_workload(const Point& point,
                                        std::shared_ptr<const Problem> problem) {
  return std::make_unique<W>(point, std::move(problem));
}

}  // namespace runner

// Defines make_<variant>, the factory the variant's registration line declares.
#define RUNNER_FACTORY(variant, ...)                                                    \
  std::unique_ptr<::runner::Workload> make_##variant(                                   \
      const ::runner::Point& point, std::shared_ptr<const ::runner::Problem> problem) { \
    return __VA_ARGS__(point, std::move(problem));                                      \
  }                                                                                     \
  static_assert(true, "RUNNER_FACTORY ends with a semicolon")
