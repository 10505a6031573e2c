#pragma once
// CPU transpose variants (transpose_cpu.cpp).
#include <memory>

#include "runner/api/point.hpp"
#include "runner/api/workload.hpp"

namespace runner::kernels::transpose {

std::unique_ptr<Workload> make_omp_serial(const Point&, std::shared_ptr<const Problem>);
std::unique_ptr<Workload> make_omp_naive(const Point&, std::shared_ptr<const Problem>);
std::unique_ptr<Workload> make_omp_blocked(const Point&, std::shared_ptr<const Problem>);

}  // namespace runner::kernels::transpose
