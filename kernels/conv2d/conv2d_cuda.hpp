#pragma once
// CUDA conv2d variants; see conv2d_cuda.cu. Declared without CUDA types so that the registration
// compiles in builds without CUDA (RUNNER_CUDA_FACTORY then drops the reference).
#include <memory>

#include "runner/point.hpp"
#include "runner/workload.hpp"

namespace runner::kernels::conv2d {

std::unique_ptr<Workload> make_naive(const Point&, std::shared_ptr<const Problem>);
std::unique_ptr<Workload> make_shared_tile(const Point&, std::shared_ptr<const Problem>);

}  // namespace runner::kernels::conv2d
