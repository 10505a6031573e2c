// Launch side of the `dmma` variant (FP64 GEMM on the tensor cores, mma.sync m16n8k8 on sm_90+,
// m8n8k4 on sm_80..89; the kernel and its design are in gemm_dmma.cuh). The tile is tuned and
// fixed (dmma::LargeSmemConfig where the device has the shared memory for it, else
// dmma::DefaultConfig; both 128×128): the variant has no block axis.
// FP64 mma needs compute capability 8.0: on an older device the point is recorded skipped.
// Where C has too few tiles to fill the GPU (small or deep-K problems) k is split
// (gemm_split_k.cuh); the record's `path` and `k_splits` say how.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "kernels/gemm/gemm_cuda_workload.hpp"
#include "kernels/gemm/gemm_dmma.cuh"
#include "kernels/gemm/gemm_split_k.cuh"
#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/cuda/residency.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/gpu_info.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::gemm {

namespace {

constexpr std::int64_t kMaxGridX = 2147483647;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// Checked before any device memory is allocated.
template <class Cfg>
const Point& require_dmma(const Point& point) {
  if (point.dtype && *point.dtype != Dtype::f64)
    throw PointInvalid("dmma requires dtype double (it is an FP64 tensor-core kernel)");
  const GpuInfo& gpu = gpu_info();
  if (gpu.present && gpu.compute_major < 8)
    throw PointSkipped("dmma needs FP64 tensor cores (compute capability 8.0 or later); " +
                       gpu.name + " is " + std::to_string(gpu.compute_major) + "." +
                       std::to_string(gpu.compute_minor));
  const ProblemSize& s = *point.size;
  if (ceil_div(s.m, Cfg::kBM) * ceil_div(s.n, Cfg::kBN) > kMaxGridX)
    throw PointInvalid("size " + to_string(s) + " needs more than 2^31-1 blocks of " +
                       std::to_string(Cfg::kBM) + "x" + std::to_string(Cfg::kBN));
  return point;
}

// Cfg: the tiles where shared memory is short; LargeCfg: the same tiles with a deeper k-step.
template <class Cfg, class LargeCfg>
class DmmaGemm final : public CudaGemm<double> {
  static_assert(Cfg::kBM == LargeCfg::kBM && Cfg::kBN == LargeCfg::kBN &&
                    Cfg::kThreads == LargeCfg::kThreads,
                "the two tiles share the grid and the block");

 public:
  DmmaGemm(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaGemm<double>(require_dmma<Cfg>(point), std::move(problem)),
        tiles_m_(ceil_div(m(), Cfg::kBM)),
        tiles_n_(ceil_div(n(), Cfg::kBN)) {
    // 16-byte copies and stores need even k and n and 16-byte aligned matrices.
    const auto aligned = [](const void* p) {
      return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
    };
    vec_ = k() % 2 == 0 && n() % 2 == 0 && aligned(a_.data()) && aligned(b_.data()) &&
           aligned(c_.data());
    int device = 0, smem_optin = 0;
    RUNNER_CUDA_CHECK(cudaGetDevice(&device));
    RUNNER_CUDA_CHECK(
        cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (static_cast<std::size_t>(smem_optin) >= LargeCfg::kSharedBytes) {
      shared_bytes_ = LargeCfg::kSharedBytes;
      k_step_ = LargeCfg::kBK;
      kernel_ = vec_ ? dmma::dmma_kernel<LargeCfg, true> : dmma::dmma_kernel<LargeCfg, false>;
    } else {
      kernel_ = vec_ ? dmma::dmma_kernel<Cfg, true> : dmma::dmma_kernel<Cfg, false>;
    }
    // The kernel image this device runs must be sm_80 or later: built for an older arch only, the
    // kernel body is compiled out (gemm_dmma.cuh) and would leave C unwritten.
    cudaFuncAttributes attr{};
    RUNNER_CUDA_CHECK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel_)));
    // (ptxVersion: a JIT-compiled image keeps the arch of the PTX it came from.)
    if (attr.binaryVersion < 80 || (attr.ptxVersion > 0 && attr.ptxVersion < 80))
      throw PointSkipped("dmma was built without an sm_80+ image for this device (binary " +
                         std::to_string(attr.binaryVersion) + ", PTX " +
                         std::to_string(attr.ptxVersion) + "): FP64 mma is compiled out");
    // Above 48 KiB of dynamic shared memory: require_launchable raises the kernel's limit.
    cuda::require_launchable(BlockShape{Cfg::kThreads, 1}, shared_bytes_,
                             reinterpret_cast<const void*>(kernel_));
    const split_k::CostModel cost = cost_model(attr);
    const split_k::Plan plan =
        split_k::plan(cost, tiles_m_ * tiles_n_, m(), n(), k(), k_step_, sizeof(double));
    const bool in_cluster = cost.sums_in_cluster(plan.splits);
    split_.emplace(plan, tiles_m_ * tiles_n_, m(), n(), k(), in_cluster);
  }

  void run() override {
    note_launch(split_->grid(), dim3(Cfg::kThreads));
    const int cluster_splits = split_->cluster_splits();
    double* const out = split_->output(c_.data());
    if (cluster_splits > 1) {
      cudaLaunchAttribute cluster = cluster_of(cluster_splits);
      const cudaLaunchConfig_t config = launch_config(split_->grid(), &cluster);
      RUNNER_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel_, a_.data(), b_.data(), out, m(), n(),
                                           k(), tiles_m_, tiles_n_, split_->plan().k_chunk,
                                           cluster_splits));
    } else {
      kernel_<<<split_->grid(), Cfg::kThreads, shared_bytes_, stream()>>>(
          a_.data(), b_.data(), out, m(), n(), k(), tiles_m_, tiles_n_, split_->plan().k_chunk, 0);
    }
    RUNNER_CUDA_CHECK_LAUNCH();
    split_->reduce_into(c_.data(), gpu_info().sm_count, stream());
  }

  nlohmann::json extra_fields() const override {
    nlohmann::json fields = CudaGemm<double>::extra_fields();
    fields["vector_copies"] = vec_;
    fields["k_step"] = k_step_;
    fields["path"] =
        split_k::describe(Cfg::kBM, Cfg::kBN, split_->plan(), split_->cluster_splits() > 1);
    fields["k_splits"] = split_->plan().splits;
    return fields;
  }

 private:
  std::int64_t tiles_m_, tiles_n_;
  bool vec_ = false;
  std::size_t shared_bytes_ = Cfg::kSharedBytes;
  int k_step_ = Cfg::kBK;
  void (*kernel_)(const double*, const double*, double*, std::int64_t, std::int64_t, std::int64_t,
                  std::int64_t, std::int64_t, std::int64_t, int) = nullptr;
  std::optional<split_k::SplitK<double>> split_;  // set once the kernel is chosen

  // A launch in clusters of (1, splits, 1) blocks: the splits of one tile.
  static cudaLaunchAttribute cluster_of(int splits) {
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = 1;
    cluster.val.clusterDim.y = static_cast<unsigned>(splits);
    cluster.val.clusterDim.z = 1;
    return cluster;
  }
  cudaLaunchConfig_t launch_config(dim3 grid, cudaLaunchAttribute* cluster) const {
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = dim3(Cfg::kThreads);
    config.dynamicSmemBytes = shared_bytes_;
    config.stream = stream();
    config.attrs = cluster;
    config.numAttrs = 1;
    return config;
  }

  // Whether this kernel can add a tile's splits in a thread-block cluster at all (SplitK): an
  // sm_90 kernel image (the cluster code is compiled for sm_90+ only) and stages large enough to
  // hold every thread's accumulators; then up to kMI splits (the blocks share the tile's kMI rows
  // of fragments; more splits go to the workspace, whose reduction spreads over every SM).
  bool kernel_sums_in_clusters(const cudaFuncAttributes& attr) const {
    return shared_bytes_ >= Cfg::kClusterSumBytes && attr.binaryVersion >= 90 &&
           (attr.ptxVersion == 0 || attr.ptxVersion >= 90);
  }

  // Blocks resident at once when launched in clusters of `splits` (0 where the GPU cannot place
  // one: a cluster needs `splits` SMs of one GPC with the shared memory free).
  std::int64_t cluster_slots(int splits) const {
    cudaLaunchAttribute cluster = cluster_of(splits);
    const cudaLaunchConfig_t config = launch_config(
        dim3(static_cast<unsigned>(tiles_m_ * tiles_n_), static_cast<unsigned>(splits)), &cluster);
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, kernel_, &config) != cudaSuccess) {
      (void)cudaGetLastError();  // not an error of the point: the workspace sum runs instead
      return 0;
    }
    return std::int64_t{clusters} * splits;
  }

  // The split-K cost model's figures for this kernel: one block an SM; a 128×128×32 k-step takes
  // 3.2 µs (42.3 TFLOP/s over 132 blocks at 4096³ on the H100; a k-step of 16 half that); the
  // workspace moves at about 3 TB/s (it mostly stays in the L2).
  split_k::CostModel cost_model(const cudaFuncAttributes& attr) const {
    const cuda::Residency resident =
        cuda::residency(reinterpret_cast<const void*>(kernel_), Cfg::kThreads, shared_bytes_);
    split_k::CostModel cost;
    cost.slots = resident.blocks;
    // Scaled by the tile's work and by the blocks sharing an SM, for other tilings.
    cost.step_us =
        3.2 * (double{Cfg::kBM} * Cfg::kBN * k_step_ / (128.0 * 128 * 32)) * resident.per_sm;
    cost.bytes_per_us = 3.0e6;
    // Up to kMI splits are added in a cluster, whose exchange of partial tiles costs about one
    // k-step (FP64 1024³, 2 splits: 59.5 % of cuBLAS with the workspace, 67.8 % in the cluster,
    // on an H200). Clusters of 3 or 4 one-block-an-SM blocks do not pack every GPC (an H200
    // places 117 and 120 such blocks, not 132): the plan counts the waves with the clusters the
    // GPU can place (1100³ in 3 splits ran at 45.6 % of cuBLAS, three waves where a model of 132
    // slots predicted two, against 52.3 % with k whole).
    if (kernel_sums_in_clusters(attr)) {
      cost.cluster_slots.assign(Cfg::kMI + 1, 0);
      for (int s = 2; s <= Cfg::kMI; ++s) cost.cluster_slots[s] = cluster_slots(s);
    }
    return cost;
  }
};

}  // namespace

RUNNER_FACTORY(dmma, make_workload<DmmaGemm<dmma::DefaultConfig, dmma::LargeSmemConfig>>);

}  // namespace runner::kernels::gemm
