#pragma once
// Split-K for the tuned GEMM variants (`regtile`, `dmma`). Their tiles are 128×128 (dmma picks
// 64×64 where those fill the GPU better): a problem with few tiles of C leaves most SMs idle (1024³
// is 64 tiles for 132 SMs; 256×256×65536, deep K, is 4 tiles, each a 65536-long dot product).
// Split-K cuts the k range into `splits` chunks of whole k-steps: block (tile, s) computes its tile
// over chunk s into slice s of a workspace, and a second kernel adds the slices into C in the order
// s = 0, 1, ... — the same sum in every run (no atomics), so a point's error does not change from
// run to run.
//
// How many splits: a cost model over the candidates, in microseconds. The main kernel takes
// waves × (steps a block computes + a fixed prologue/epilogue) × the time of one k-step, where
// waves = ceil(tiles × splits / slots) and slots = the blocks the GPU holds at once; splitting
// then costs a second launch and the workspace traffic (each slice written once and read once, C
// written). The k-step time and the bandwidth are a variant's measured figures (its .cu file
// says where from); the model only compares candidates with each other, so they need be right
// only in proportion. It picks 1 split wherever the tiles already fill the GPU about evenly.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#ifdef __CUDACC__
#include "kernels/common/dependent_launch.cuh"
#include "kernels/common/vector16.cuh"
#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/cuda/device_buffer.hpp"
#endif

namespace runner::kernels::gemm::split_k {

struct Plan {
  int splits = 1;
  std::int64_t k_chunk = 0;  // k elements a split covers (whole k-steps; the last may be shorter)
  double modelled_us = 0;    // its time in the cost model (to compare one tiling with another)
};

// What the cost model needs of a variant on a device.
struct CostModel {
  std::int64_t slots = 1;   // blocks resident at once: SMs × blocks per SM
  double step_us = 1;       // one block's k-step (BM×BN×BK) with every slot busy
  double fixed_steps = 2;   // prologue and epilogue, in k-steps
  double bytes_per_us = 1;  // device memory bandwidth for the workspace traffic
  double launch_us = 3;     // the reduction's launch, back to back on the stream
  int max_splits = 256;
  int min_chunk_steps = 4;  // no chunk shorter than this many k-steps
  // Splits the variant adds in a thread-block cluster (SplitK) instead of the workspace:
  // cluster_slots[s] is the blocks resident at once when they are launched in clusters of s
  // (fewer than `slots` where a cluster must fit in one GPC), 0 or absent where s splits go to the
  // workspace. In a cluster a split costs no workspace traffic and no second launch, only the
  // exchange of the partial tiles in distributed shared memory: cluster_sum_steps k-steps.
  std::vector<std::int64_t> cluster_slots;
  double cluster_sum_steps = 1;
  // The SMs, for a variant whose blocks share an SM (slots > sms): 0 counts every wave as full.
  // Given, a wave's k-step takes step_us × (its blocks on the busiest SM) / (blocks an SM holds):
  // an SM's throughput is taken as the same with fewer blocks, so that a last wave of 1 block an
  // SM where 4 fit costs a quarter of a full one (a tiling of small tiles, dmma's 64×64, fills
  // the GPU in one partial wave where a 128×128 one leaves SMs idle).
  std::int64_t sms = 0;
  // With sms given: the k-step of a block alone on its SM as a share of step_us, where a lone
  // block does not get its SM's whole throughput (a variant's measured figure; its .cu file says
  // where from). A wave's k-step then takes at least this share. 0: b / (blocks an SM holds).
  double lone_block_share = 0;

  bool sums_in_cluster(std::int64_t splits) const {
    return splits > 1 && splits < static_cast<std::int64_t>(cluster_slots.size()) &&
           cluster_slots[static_cast<std::size_t>(splits)] > 0;
  }
};

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// Modelled time of `splits` (see the top of the file); splits > 1 add the workspace traffic, or
// the exchange in the cluster where the variant sums them there.
inline double modelled_us(const CostModel& cost, std::int64_t tiles, std::int64_t k_steps,
                          std::int64_t splits, std::int64_t mn, int element_bytes) {
  const std::int64_t chunk_steps = ceil_div(k_steps, splits);
  const bool in_cluster = cost.sums_in_cluster(splits);
  const std::int64_t slots =
      in_cluster ? cost.cluster_slots[static_cast<std::size_t>(splits)] : cost.slots;
  const std::int64_t blocks = tiles * splits;
  const std::int64_t waves = ceil_div(blocks, slots);
  const double steps = static_cast<double>(chunk_steps) + cost.fixed_steps +
                       (in_cluster ? cost.cluster_sum_steps : 0.0);
  double full_waves = static_cast<double>(waves);
  if (cost.sms > 0 && slots > cost.sms) {
    // The last wave's share of a full one: its blocks on the busiest SM over an SM's slots.
    const std::int64_t last = blocks - (waves - 1) * slots;
    const double share = static_cast<double>(ceil_div(last, cost.sms)) /
                         static_cast<double>(ceil_div(slots, cost.sms));
    full_waves = static_cast<double>(waves - 1) + std::max(share, cost.lone_block_share);
  }
  double us = full_waves * steps * cost.step_us;
  if (splits > 1 && !in_cluster)
    us += cost.launch_us + static_cast<double>(2 * splits + 1) * static_cast<double>(mn) *
                               element_bytes / cost.bytes_per_us;
  return us;
}

// The chunk, in k-steps, that cuts k_steps into exactly `splits` chunks (each but the last that
// long): nullopt where that split is not one of its own, i.e. where more than one split lies
// below every chunk of cost.min_chunk_steps (splits > k_steps / min_chunk_steps) or where a
// smaller split already makes the same chunks (ceil(k_steps / chunk) < splits: an empty last
// chunk). One split is always its own: the whole of k. The one rule of plan() and
// plan_of_splits().
inline std::optional<std::int64_t> chunk_steps_of(std::int64_t k_steps, std::int64_t splits,
                                                  int min_chunk_steps) {
  if (splits < 1) return std::nullopt;
  if (splits == 1) return k_steps;
  if (splits > k_steps / std::max(1, min_chunk_steps)) return std::nullopt;
  const std::int64_t chunk = ceil_div(k_steps, splits);
  if (ceil_div(k_steps, chunk) != splits) return std::nullopt;
  return chunk;
}

// k cut into exactly `splits` chunks of whole k-steps (chunk_steps_of), with its modelled time:
// for plan(), and for a variant that times splits instead of trusting the model (dmma where its
// tiles leave SMs idle). nullopt where that split is not one of its own.
inline std::optional<Plan> plan_of_splits(const CostModel& cost, std::int64_t tiles, std::int64_t m,
                                          std::int64_t n, std::int64_t k, int bk, int element_bytes,
                                          int splits) {
  const std::int64_t k_steps = std::max<std::int64_t>(1, ceil_div(k, bk));
  const std::optional<std::int64_t> chunk = chunk_steps_of(k_steps, splits, cost.min_chunk_steps);
  if (!chunk) return std::nullopt;
  return Plan{splits, splits == 1 ? k : *chunk * bk,
              modelled_us(cost, tiles, k_steps, splits, m * n, element_bytes)};
}

// The cheapest split of k (multiples of bk) for `tiles` tiles of an m×n C.
inline Plan plan(const CostModel& cost, std::int64_t tiles, std::int64_t m, std::int64_t n,
                 std::int64_t k, int bk, int element_bytes) {
  Plan best = *plan_of_splits(cost, tiles, m, n, k, bk, element_bytes, 1);
  const std::int64_t k_steps = std::max<std::int64_t>(1, ceil_div(k, bk));
  const int most = static_cast<int>(std::min<std::int64_t>(cost.max_splits, k_steps));
  for (int s = 2; s <= most; ++s) {
    const std::optional<Plan> split = plan_of_splits(cost, tiles, m, n, k, bk, element_bytes, s);
    if (split && split->modelled_us < best.modelled_us * 0.97)  // must win clearly: a rough model
      best = *split;
  }
  return best;
}

// For the record's `path`: "128x128 tiles", "128x128 tiles, split-K 4" or, where the splits are
// added in a thread-block cluster (SplitK), "128x128 tiles, split-K 2 summed in a cluster".
// `tiles` names a tiling where its sides alone do not ("64x64-2w").
inline std::string describe(const std::string& tiles, const Plan& p, bool in_cluster = false) {
  std::string s = tiles + " tiles";
  if (p.splits > 1) s += ", split-K " + std::to_string(p.splits);
  if (p.splits > 1 && in_cluster) s += " summed in a cluster";
  return s;
}
inline std::string describe(int bm, int bn, const Plan& p, bool in_cluster = false) {
  return describe(std::to_string(bm) + "x" + std::to_string(bn), p, in_cluster);
}

#ifdef __CUDACC__
// A launch in clusters of (1, splits, 1) blocks: the splits of one tile, summed in the cluster.
inline cudaLaunchAttribute cluster_of(int splits) {
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = 1;
  cluster.val.clusterDim.y = static_cast<unsigned>(splits);
  cluster.val.clusterDim.z = 1;
  return cluster;
}

// c[i] = Σ_s partial[s·count + i], s in order; 16-byte vectors where count allows (the slices
// then all start on 16-byte boundaries: cudaMalloc'd workspace, count a multiple of the vector).
// Launched as a dependent of the GEMM (dependent_launch.cuh): it waits on the device for the
// slices.
template <typename T, typename V>
__global__ void reduce_kernel(const T* __restrict__ partial, T* __restrict__ c, std::int64_t count,
                              int splits) {
  wait_for_producer();
  constexpr int kLanes = sizeof(V) / sizeof(T);
  const std::int64_t vectors = count / kLanes;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < vectors;
       i += stride) {
    T sum[kLanes] = {};  // 0 + x is x: the same sum as starting from slice 0
    for (int s = 0; s < splits; ++s) {
      const V v = *reinterpret_cast<const V*>(partial + s * count + i * kLanes);
      const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
      for (int l = 0; l < kLanes; ++l) sum[l] += e[l];
    }
    *reinterpret_cast<V*>(c + i * kLanes) = *reinterpret_cast<const V*>(sum);
  }
}

// The same sum where the slices' rows are `ld` elements apart (a multiple of the vector, ld > n):
// each vector of the slices' layout is read whole, and its lanes inside C's n columns are written
// to C (m×n, rows n apart) one by one — consecutive threads, consecutive elements.
template <typename T, typename V>
__global__ void reduce_rows_kernel(const T* __restrict__ partial, T* __restrict__ c, std::int64_t m,
                                   std::int64_t n, std::int64_t ld, int splits) {
  wait_for_producer();
  constexpr int kLanes = sizeof(V) / sizeof(T);
  const std::int64_t row_vectors = ld / kLanes;
  const std::int64_t vectors = m * row_vectors;
  const std::int64_t slice = m * ld;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < vectors;
       i += stride) {
    T sum[kLanes] = {};
    for (int s = 0; s < splits; ++s) {
      const V v = *reinterpret_cast<const V*>(partial + s * slice + i * kLanes);
      const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
      for (int l = 0; l < kLanes; ++l) sum[l] += e[l];
    }
    const std::int64_t row = i / row_vectors, col = (i - row * row_vectors) * kLanes;
    T* out = c + row * n + col;
#pragma unroll
    for (int l = 0; l < kLanes; ++l)
      if (col + l < n) out[l] = sum[l];
  }
}

// A variant's split of k for one problem: the plan, the workspace it needs, the launch grid and
// the reduction. With one split the kernel writes C and nothing else runs.
//
// The workspace's slices may have rows longer than C's (slice_ld > n, a whole number of 16-byte
// vectors): a kernel whose C rows do not start on 16-byte boundaries (n odd) can still store its
// partial tiles as vectors. Its scalar stores cost `regtile` 11 µs at 511³, nearly half of its
// run: four partial writes to each 32-byte sector (Nsight Compute: 56 MB through the L2 against
// 20 MB at 512³, same grid).
//
// Summed in a cluster (sm_90+, a variant whose kernel supports it): the splits of one tile are
// the blocks of one thread-block cluster, (1, splits, 1); after the k-loop every block puts its
// partial tile in its shared memory, and each block adds a share of the tile's rows over the
// cluster's partial tiles, in the order s = 0, 1, ..., through distributed shared memory and
// writes them to C. The same sum in the same order as the reduction kernel, without the
// workspace's traffic or a second kernel.
template <typename T>
class SplitK {
 public:
  // Plans for an m×n C of `tiles` tiles (k-steps of bk) and allocates the workspace; where the
  // device has no room for it, k stays whole (the workspace is scratch, not a requirement).
  // slice_ld: the workspace's row length (0: n; else at least n, a multiple of the vector).
  SplitK(const CostModel& cost, std::int64_t tiles, std::int64_t m, std::int64_t n, std::int64_t k,
         int bk, std::int64_t slice_ld = 0)
      : SplitK(split_k::plan(cost, tiles, m, n, k, bk, sizeof(T)), tiles, m, n, k, false,
               slice_ld) {}

  // A plan made by the caller; sum_in_cluster: the kernel adds the splits in a cluster (no
  // workspace, no reduction kernel).
  SplitK(const Plan& plan, std::int64_t tiles, std::int64_t m, std::int64_t n, std::int64_t k,
         bool sum_in_cluster, std::int64_t slice_ld = 0)
      : plan_(plan),
        m_(m),
        n_(n),
        slice_ld_(slice_ld > n ? slice_ld : n),
        tiles_(tiles),
        in_cluster_(sum_in_cluster && plan.splits > 1) {
    if (plan_.splits == 1 || in_cluster_) return;
    auto slices = cuda::DeviceBuffer<T>::try_allocate(static_cast<std::size_t>(plan_.splits) *
                                                      static_cast<std::size_t>(m_ * slice_ld_));
    if (slices)
      workspace_ = std::move(*slices);
    else
      plan_ = Plan{1, k};
  }

  const Plan& plan() const { return plan_; }
  // The cluster the kernel must be launched in (1, splits, 1), or 0 where it is not.
  int cluster_splits() const { return in_cluster_ ? plan_.splits : 0; }
  // Blocks: x the tiles, y the slices (each kernel reads blockIdx.y · k_chunk as its first k).
  dim3 grid() const {
    return dim3(static_cast<unsigned>(tiles_), static_cast<unsigned>(plan_.splits));
  }
  // Where the kernel writes: C, or the workspace's slices (m rows of output_ld() elements each).
  T* output(T* c) const { return to_workspace() ? workspace_.data() : c; }
  // The row length of what output() points at: n for C, slice_ld for the workspace.
  std::int64_t output_ld() const { return to_workspace() ? slice_ld_ : n_; }

  // After the kernel: adds the slices into c (nothing with one split or a sum in the cluster).
  void reduce_into(T* c, int sm_count, cudaStream_t stream) const {
    if (!to_workspace()) return;
    constexpr int kThreads = 256;
    using V = typename Vector16<T>::type;
    constexpr int kLanes = sizeof(V) / sizeof(T);
    const T* partial = workspace_.data();
    const auto blocks_for = [&](std::int64_t items) {
      return static_cast<unsigned>(
          std::clamp<std::int64_t>(ceil_div(items, kThreads), 1, std::int64_t{sm_count} * 16));
    };
    if (slice_ld_ != n_) {
      launch_dependent(reduce_rows_kernel<T, V>, dim3(blocks_for(m_ * slice_ld_ / kLanes)),
                       dim3(kThreads), 0, stream, partial, c, m_, n_, slice_ld_, plan_.splits);
      return;
    }
    const std::int64_t count = m_ * n_;
    const bool vector = count % kLanes == 0;
    launch_dependent(vector ? reduce_kernel<T, V> : reduce_kernel<T, T>,
                     dim3(blocks_for(vector ? count / kLanes : count)), dim3(kThreads), 0, stream,
                     partial, c, count, plan_.splits);
  }

 private:
  bool to_workspace() const { return plan_.splits > 1 && !in_cluster_; }

  Plan plan_;
  std::int64_t m_, n_, slice_ld_, tiles_;
  bool in_cluster_ = false;
  cuda::DeviceBuffer<T> workspace_;  // plan_.splits slices of C, when k is split
};
#endif

}  // namespace runner::kernels::gemm::split_k
