// conv2d shared_reg: the shared-memory tile of `shared` plus register blocking. A fixed block of
// 32 × 8 threads computes a 128-column × 32-row output tile; each thread a 4 × 4 patch (kRows rows
// of 4 adjacent columns) kept in 16 accumulators, so every value it reads from shared memory
// serves up to 4 × 4 of its outputs. Filter in constant memory.
//
// Shared tile: image rows [row0 − r, row0 + 32 + r) × image columns [col0 − H, col0 + 128 + H),
// zeros outside the image, r = ks / 2 and H = r rounded up to a multiple of 4, so that the tile's
// rows (pitch 128 + 2H floats) and every thread's window start on 16-byte boundaries. It is loaded
// with 16-byte vectors (float4 global loads where the image row length n is a multiple of 4, which
// makes every vector of a tile row wholly inside or wholly outside the image; element by element
// otherwise) and 16-byte shared stores.
//
// ks = 1, 3, 5, 7 (and 9, whose r = 4 = H): kernel template on KS, every loop unrolled. For each
// of the kRows + KS − 1 tile rows under its patch, a thread reads its window of 4 + 2H floats as
// float4s (LDS.128: a warp reads 32 consecutive 16-byte vectors, no bank conflict) and does the
// FFMAs of every (output row, filter row) pair that uses it, weights as constant-bank operands:
// KS = 7 reads 10 rows × 12 floats for 16 × 49 FFMAs. Stores: one float4 per output row and
// thread (a warp writes 512 contiguous bytes) where n is a multiple of 4, else guarded scalars.
//
// Any other odd ks (11..31): a generic kernel with the same tile and loads and run-time filter
// loops, where thread x takes columns x, x + 32, x + 64, x + 96 instead (scalar shared reads of
// consecutive words: no bank conflicts without the float4 window, whose length would depend on
// ks), accumulating the same 4 × 4 patch shape.
//
// Any image size: partial tiles are guarded on store, the loads zero-fill outside the image, and
// tile rows beyond gridDim.y's limit are covered by a loop.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "kernels/conv2d/conv2d_cuda.hpp"
#include "kernels/conv2d/conv2d_cuda_workload.hpp"
#include "kernels/conv2d/conv2d_problem.hpp"
#include "runner/cuda/cuda_workload.hpp"
#include "runner/errors.hpp"

namespace runner::kernels::conv2d {

namespace {

// This file's copy of the filter (constant memory is per translation unit without relocatable
// device code): uploaded by each workload in its constructor, on its stream, before its first run.
__constant__ float c_weights_reg[kMaxKernelSize * kMaxKernelSize];

constexpr int kBlockX = 32, kBlockY = 8;  // threads
constexpr int kRows = 4, kCols = 4;       // outputs per thread
constexpr int kTileW = kBlockX * kCols;   // 128 output columns per tile
constexpr int kTileH = kBlockY * kRows;   // 32 output rows per tile
constexpr unsigned kMaxGridY = 65535;

__host__ __device__ constexpr int halo_cols(int r) {
  return (r + 3) / 4 * 4;
}  // H
__host__ __device__ constexpr int tile_pitch(int r) {
  return kTileW + 2 * halo_cols(r);
}
constexpr std::size_t tile_bytes(int ks) {
  const int r = ks / 2;
  return static_cast<std::size_t>(kTileH + 2 * r) * static_cast<std::size_t>(tile_pitch(r)) *
         sizeof(float);
}

// The whole block loads the tile of tile row `tile_y` (zeros outside the image) as float4 slots.
__device__ __forceinline__ void load_tile(float* tile, const float* __restrict__ in, int m, int n,
                                          int r, int row0, int col0) {
  const int hc = halo_cols(r), pitch4 = tile_pitch(r) / 4;
  const int slots = (kTileH + 2 * r) * pitch4;
  const int t = static_cast<int>(threadIdx.y * kBlockX + threadIdx.x);
  const bool vec = n % 4 == 0;  // uniform over the grid
  for (int s = t; s < slots; s += kBlockX * kBlockY) {
    const int ty = s / pitch4, tx4 = s % pitch4;
    const int x = row0 - r + ty, y = col0 - hc + 4 * tx4;  // image row and first column
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (x >= 0 && x < m) {
      const std::int64_t at = static_cast<std::int64_t>(x) * n + y;  // index of (x, y)
      if (vec) {
        // y and n are multiples of 4: the vector is wholly inside or wholly outside the row.
        if (y >= 0 && y < n) v = *reinterpret_cast<const float4*>(in + at);
      } else {
        if (y >= 0 && y < n) v.x = in[at];
        if (y + 1 >= 0 && y + 1 < n) v.y = in[at + 1];
        if (y + 2 >= 0 && y + 2 < n) v.z = in[at + 2];
        if (y + 3 >= 0 && y + 3 < n) v.w = in[at + 3];
      }
    }
    *reinterpret_cast<float4*>(tile + ty * (4 * pitch4) + 4 * tx4) = v;
  }
}

template <int KS>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    conv2d_shared_reg(const float* __restrict__ in, float* __restrict__ out, int m, int n) {
  extern __shared__ __align__(16) float tile[];
  constexpr int r = KS / 2, hc = halo_cols(r), pitch = tile_pitch(r);
  constexpr int kWindow = kCols + 2 * hc;  // floats a thread reads per tile row
  static_assert(hc - r >= 0 && kWindow % 4 == 0);
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int col0 = static_cast<int>(blockIdx.x) * kTileW;
  const int j = col0 + kCols * tx;  // image column of the thread's first output
  const bool vec = n % 4 == 0;

  for (int tile_y = static_cast<int>(blockIdx.y); tile_y * kTileH < m;
       tile_y += static_cast<int>(gridDim.y)) {
    const int row0 = tile_y * kTileH;
    load_tile(tile, in, m, n, r, row0, col0);
    __syncthreads();

    float acc[kRows][kCols];
#pragma unroll
    for (int rr = 0; rr < kRows; ++rr)
#pragma unroll
      for (int c = 0; c < kCols; ++c) acc[rr][c] = 0.0f;

    // Tile row ty·kRows + ir holds image row row0 + ty·kRows + ir − r: filter row a = ir − rr of
    // output row rr. Tile column kCols·tx + w holds image column j − hc + w: tap b of output
    // column c is w = c + b + hc − r.
    const float* base = tile + (ty * kRows) * pitch + kCols * tx;
#pragma unroll
    for (int ir = 0; ir < kRows + KS - 1; ++ir) {
      float w[kWindow];
#pragma unroll
      for (int v = 0; v < kWindow / 4; ++v) {
        const float4 f = *reinterpret_cast<const float4*>(base + ir * pitch + 4 * v);
        w[4 * v] = f.x;
        w[4 * v + 1] = f.y;
        w[4 * v + 2] = f.z;
        w[4 * v + 3] = f.w;
      }
#pragma unroll
      for (int rr = 0; rr < kRows; ++rr) {
        const int a = ir - rr;
        if (a < 0 || a >= KS) continue;  // compile-time after unrolling
#pragma unroll
        for (int b = 0; b < KS; ++b) {
          const float wt = c_weights_reg[a * KS + b];
#pragma unroll
          for (int c = 0; c < kCols; ++c) acc[rr][c] = fmaf(w[c + b + hc - r], wt, acc[rr][c]);
        }
      }
    }

#pragma unroll
    for (int rr = 0; rr < kRows; ++rr) {
      const int i = row0 + ty * kRows + rr;
      if (i >= m || j >= n) continue;
      float* dst = out + static_cast<std::int64_t>(i) * n + j;
      if (vec) {
        // j and n multiples of 4, j < n: all 4 columns inside, 16-byte aligned.
        *reinterpret_cast<float4*>(dst) =
            make_float4(acc[rr][0], acc[rr][1], acc[rr][2], acc[rr][3]);
      } else {
#pragma unroll
        for (int c = 0; c < kCols; ++c)
          if (j + c < n) dst[c] = acc[rr][c];
      }
    }
    __syncthreads();  // everyone is done with this tile before the next one overwrites it
  }
}

// Any odd ks: the same tile, run-time filter loops. Thread x owns columns x + 32·c.
__global__ void __launch_bounds__(kBlockX* kBlockY)
    conv2d_shared_reg_generic(const float* __restrict__ in, float* __restrict__ out, int m, int n,
                              int ks) {
  extern __shared__ __align__(16) float tile[];
  const int r = ks / 2, hc = halo_cols(r), pitch = tile_pitch(r);
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int col0 = static_cast<int>(blockIdx.x) * kTileW;

  for (int tile_y = static_cast<int>(blockIdx.y); tile_y * kTileH < m;
       tile_y += static_cast<int>(gridDim.y)) {
    const int row0 = tile_y * kTileH;
    load_tile(tile, in, m, n, r, row0, col0);
    __syncthreads();

    float acc[kRows][kCols];
#pragma unroll
    for (int rr = 0; rr < kRows; ++rr)
#pragma unroll
      for (int c = 0; c < kCols; ++c) acc[rr][c] = 0.0f;

    // Tile column tx + kBlockX·c + hc − r + b is tap b of output column tx + kBlockX·c.
    const float* base = tile + (ty * kRows) * pitch + tx + hc - r;
    for (int ir = 0; ir < kRows + ks - 1; ++ir) {
      const float* row = base + ir * pitch;
      for (int b = 0; b < ks; ++b) {
        float v[kCols];
#pragma unroll
        for (int c = 0; c < kCols; ++c) v[c] = row[kBlockX * c + b];
#pragma unroll
        for (int rr = 0; rr < kRows; ++rr) {
          const int a = ir - rr;
          if (a < 0 || a >= ks) continue;  // uniform over the block
          const float wt = c_weights_reg[a * ks + b];
#pragma unroll
          for (int c = 0; c < kCols; ++c) acc[rr][c] = fmaf(v[c], wt, acc[rr][c]);
        }
      }
    }

#pragma unroll
    for (int rr = 0; rr < kRows; ++rr) {
      const int i = row0 + ty * kRows + rr;
      if (i >= m) continue;
      float* dst = out + static_cast<std::int64_t>(i) * n;
#pragma unroll
      for (int c = 0; c < kCols; ++c) {
        const int jc = col0 + tx + kBlockX * c;
        if (jc < n) dst[jc] = acc[rr][c];
      }
    }
    __syncthreads();
  }
}

using SpecialisedKernel = void (*)(const float*, float*, int, int);

// The unrolled kernel of filter side ks, null where the generic one runs.
SpecialisedKernel specialised_kernel(int ks) {
  switch (ks) {
    case 1:
      return conv2d_shared_reg<1>;
    case 3:
      return conv2d_shared_reg<3>;
    case 5:
      return conv2d_shared_reg<5>;
    case 7:
      return conv2d_shared_reg<7>;
    case 9:
      return conv2d_shared_reg<9>;
    default:
      return nullptr;
  }
}

// The filter side of a point, with the rules of the other CUDA conv2d variants.
int checked_kernel_size(const Point& point) {
  const int ks = point.kernel_size.value_or(3);
  if (ks < 1 || ks > kMaxKernelSize || ks % 2 == 0)
    throw PointInvalid("the CUDA conv2d kernels exist for odd kernel_size 1.." +
                       std::to_string(kMaxKernelSize) + ", not " + std::to_string(ks));
  return ks;
}

const void* kernel_address(int ks) {
  if (SpecialisedKernel k = specialised_kernel(ks)) return reinterpret_cast<const void*>(k);
  return reinterpret_cast<const void*>(&conv2d_shared_reg_generic);
}

class SharedReg final : public CudaConv2dFixed {
 public:
  SharedReg(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaConv2dFixed(point, std::move(problem), kernel_address(checked_kernel_size(point)),
                        BlockShape{kBlockX, kBlockY}, tile_bytes(checked_kernel_size(point))),
        specialised_(specialised_kernel(p_.ks)),
        shared_bytes_(tile_bytes(p_.ks)) {
    h2d_ms_ += time_copy([&] {
      RUNNER_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_weights_reg, p_.weights.data(),
                                                p_.weights.size() * sizeof(float), 0,
                                                cudaMemcpyHostToDevice, stream()));
    });
  }

  void run() override {
    const dim3 block(kBlockX, kBlockY);
    const auto tiles_x = (p_.n + kTileW - 1) / kTileW, tiles_y = (p_.m + kTileH - 1) / kTileH;
    const dim3 grid(static_cast<unsigned>(tiles_x),
                    static_cast<unsigned>(std::min<std::int64_t>(tiles_y, kMaxGridY)));
    if (specialised_)
      specialised_<<<grid, block, shared_bytes_, stream()>>>(in_.data(), out_.data(), m(), n());
    else
      conv2d_shared_reg_generic<<<grid, block, shared_bytes_, stream()>>>(in_.data(), out_.data(),
                                                                          m(), n(), p_.ks);
    RUNNER_CUDA_CHECK_LAUNCH();
  }

 private:
  SpecialisedKernel specialised_;
  std::size_t shared_bytes_;
};

}  // namespace

std::unique_ptr<Workload> make_shared_reg(const Point& point,
                                          std::shared_ptr<const Problem> problem) {
  return std::make_unique<SharedReg>(point, std::move(problem));
}

}  // namespace runner::kernels::conv2d
