#pragma once
// CUDA GEMM variants: hand-written kernels (gemm_cuda.cu) and cuBLAS (gemm_cublas.cpp). A plain
// C++ header with no CUDA include, so that gemm_registration.cpp compiles in CPU-only builds too,
// where RUNNER_CUDA_FACTORY drops the references to these functions.
#include <memory>

#include "runner/api/point.hpp"
#include "runner/api/workload.hpp"

namespace runner::kernels::gemm {

// One output per step of a 1-D grid-stride loop; axes block (x only) and grid (0: one output per
// thread).
std::unique_ptr<Workload> make_naive_1d(const Point&, std::shared_ptr<const Problem>);
// One thread per output on a 2-D grid of 2-D blocks.
std::unique_ptr<Workload> make_naive_2d(const Point&, std::shared_ptr<const Problem>);
// Square shared-memory tiles of A and B the size of the (square) block, one output per thread.
std::unique_ptr<Workload> make_shared_tiled(const Point&, std::shared_ptr<const Problem>);
// cuBLAS SGEMM / DGEMM: the vendor reference.
std::unique_ptr<Workload> make_cublas(const Point&, std::shared_ptr<const Problem>);
// cuBLAS SGEMM on the TF32 tensor cores (lower precision, verified with the TF32 tolerance).
std::unique_ptr<Workload> make_cublas_tf32(const Point&, std::shared_ptr<const Problem>);
// FP32 SIMT GEMM: 128×128 block tiles, 8×8 register tiles, double-buffered (gemm_regtile.cu).
std::unique_ptr<Workload> make_regtile(const Point&, std::shared_ptr<const Problem>);
// FP64 GEMM on the tensor cores, mma.sync m16n8k8 (sm_90+) / m8n8k4 (sm_80+; gemm_dmma.cu).
std::unique_ptr<Workload> make_dmma(const Point&, std::shared_ptr<const Problem>);

}  // namespace runner::kernels::gemm
