#pragma once
// CUDA conv2d variants; see conv2d_cuda.cu. Declared without CUDA types so that the registration
// compiles in builds without CUDA (RUNNER_CUDA_FACTORY then drops the reference).
#include <memory>

#include "runner/api/point.hpp"
#include "runner/api/workload.hpp"

namespace runner::kernels::conv2d {

std::unique_ptr<Workload> make_naive(const Point&, std::shared_ptr<const Problem>);
std::unique_ptr<Workload> make_shared_tile(const Point&, std::shared_ptr<const Problem>);

// conv2d_shared_reg.cu: shared tile + halo, 4×4 outputs per thread in registers, fixed 32×8 block,
// unrolled for ks 1, 3, 5, 7, 9 and generic otherwise.
std::unique_ptr<Workload> make_shared_reg(const Point&, std::shared_ptr<const Problem>);

#ifdef RUNNER_HAVE_CUDNN
// conv2d_cudnn.cpp: cuDNN convolution forward (cross-correlation), the vendor reference. Compiled
// only where CMake found cuDNN.
std::unique_ptr<Workload> make_cudnn(const Point&, std::shared_ptr<const Problem>);
#endif

}  // namespace runner::kernels::conv2d
