#pragma once
// CPU GEMM variants (OpenMP and OpenBLAS); see gemm_cpu.cpp.
#include <memory>

#include "runner/api/point.hpp"
#include "runner/api/workload.hpp"

namespace runner::kernels::gemm {

std::unique_ptr<Workload> make_omp_serial(const Point&, std::shared_ptr<const Problem>);
std::unique_ptr<Workload> make_omp_naive(const Point&, std::shared_ptr<const Problem>);
std::unique_ptr<Workload> make_omp_blocked(const Point&, std::shared_ptr<const Problem>);
std::unique_ptr<Workload> make_openblas(const Point&, std::shared_ptr<const Problem>);
// omp_tiled: cache-blocked, packed, register-tiled GEMM (GotoBLAS/BLIS structure); gemm_cpu_tiled.cpp.
std::unique_ptr<Workload> make_omp_tiled(const Point&, std::shared_ptr<const Problem>);

}  // namespace runner::kernels::gemm
