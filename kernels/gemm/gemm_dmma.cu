// Launch side of the `dmma` variant (FP64 GEMM on the tensor cores, mma.sync m8n8k4; the kernel
// and its design are in gemm_dmma.cuh). The tile is tuned and fixed: the variant has no block axis.
// FP64 mma needs compute capability 8.0: on an older device the point is recorded skipped.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "kernels/gemm/gemm_cuda.hpp"
#include "kernels/gemm/gemm_cuda_workload.hpp"
#include "kernels/gemm/gemm_dmma.cuh"
#include "runner/cuda/cuda_check.hpp"
#include "runner/errors.hpp"
#include "runner/gpu_info.hpp"

namespace runner::kernels::gemm {

namespace {

constexpr std::int64_t kMaxGridX = 2147483647;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// Checked before any device memory is allocated.
const Point& require_dmma(const Point& point) {
  if (point.dtype && *point.dtype != Dtype::f64)
    throw PointInvalid("dmma requires dtype double (it is an FP64 tensor-core kernel)");
  const GpuInfo& gpu = gpu_info();
  if (gpu.present && gpu.compute_major < 8)
    throw PointSkipped("dmma needs FP64 tensor cores (compute capability 8.0 or later); " +
                       gpu.name + " is " + std::to_string(gpu.compute_major) + "." +
                       std::to_string(gpu.compute_minor));
  const ProblemSize& s = *point.size;
  if (ceil_div(s.m, dmma::kBM) * ceil_div(s.n, dmma::kBN) > kMaxGridX)
    throw PointInvalid("size " + to_string(s) + " needs more than 2^31-1 blocks of 128x64");
  return point;
}

class DmmaGemm final : public CudaGemm<double> {
 public:
  DmmaGemm(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaGemm<double>(require_dmma(point), std::move(problem)),
        tiles_m_(ceil_div(m(), dmma::kBM)),
        tiles_n_(ceil_div(n(), dmma::kBN)) {
    // The kernel image this device runs must be sm_80 or later: built for an older arch only, the
    // kernel body is compiled out (gemm_dmma.cuh) and would leave C unwritten.
    cudaFuncAttributes attr{};
    RUNNER_CUDA_CHECK(
        cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(dmma::dmma_kernel)));
    // (ptxVersion: a JIT-compiled image keeps the arch of the PTX it came from.)
    if (attr.binaryVersion < 80 || (attr.ptxVersion > 0 && attr.ptxVersion < 80))
      throw PointSkipped("dmma was built without an sm_80+ image for this device (binary " +
                         std::to_string(attr.binaryVersion) + ", PTX " +
                         std::to_string(attr.ptxVersion) + "): FP64 mma is compiled out");
    // 85.5 KiB of dynamic shared memory: require_launchable raises the kernel's limit above 48 KiB.
    cuda::require_launchable(BlockShape{dmma::kThreads, 1}, dmma::kSharedBytes,
                             reinterpret_cast<const void*>(dmma::dmma_kernel));
  }

  void run() override {
    const auto blocks = static_cast<unsigned>(tiles_m_ * tiles_n_);
    dmma::dmma_kernel<<<blocks, dmma::kThreads, dmma::kSharedBytes, stream()>>>(
        a_.data(), b_.data(), c_.data(), m(), n(), k(), tiles_m_, tiles_n_);
    RUNNER_CUDA_CHECK_LAUNCH();
  }

  nlohmann::json extra_fields() const override {
    nlohmann::json fields = CudaGemm<double>::extra_fields();
    fields["grid_blocks"] = tiles_m_ * tiles_n_;
    return fields;
  }

 private:
  std::int64_t tiles_m_, tiles_n_;
};

}  // namespace

std::unique_ptr<Workload> make_dmma(const Point& point, std::shared_ptr<const Problem> problem) {
  return std::make_unique<DmmaGemm>(point, std::move(problem));
}

}  // namespace runner::kernels::gemm
