#pragma once
// CPU conv2d variants (OpenMP); see conv2d_cpu.cpp.
#include <memory>

#include "runner/api/point.hpp"
#include "runner/api/workload.hpp"

namespace runner::kernels::conv2d {

std::unique_ptr<Workload> make_omp_serial(const Point&, std::shared_ptr<const Problem>);
std::unique_ptr<Workload> make_omp(const Point&, std::shared_ptr<const Problem>);

}  // namespace runner::kernels::conv2d
