#pragma once
// A registry of made-up kernels for tests of expansion, sharding and relative metrics, so those
// tests do not change when a kernel family gains or loses a variant. The families mirror the real
// ones in shape (the matrix code gives `gemm` a k dimension and other kernels none), but nothing
// here can run: the factories are only there so the variants count as built.
#include <string>

#include "runner/api/registry.hpp"
#include "runner/spec/config.hpp"

namespace runner::testing {

// gemm:      size, dtype (float, double); variants omp_serial (cpu), omp_blocked (cpu, threads),
//            cuda_tiled (cuda, block), cuda_tf32 (cuda, block, float only, tf32)
// transpose: size, dtype; ceiling variant copy; copy (cuda, block), naive (cuda, block),
//            omp_serial (cpu), omp_tiled (cpu, threads)
// conv2d:    size, dtype, kernel_size; omp_serial (cpu), omp_parallel (cpu, threads),
//            cuda_direct (cuda, block)
const Registry& fake_registry();

// parse_config on a string, file name "test.yaml".
ExperimentSpec parse(const std::string& yaml);

}  // namespace runner::testing
