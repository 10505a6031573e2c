#pragma once
// The shared-memory tile kernel of conv2d `shared`: the block's input tile plus a halo of
// r = ks/2 on each side loaded cooperatively into shared memory (zeros outside the image), then
// each thread sums its ks² taps from shared memory with no border test; the filter in constant
// memory (c_weights, conv2d_constant_filter.cuh).
#include "runner/api/gpu/runtime.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "kernels/conv2d/conv2d_constant_filter.cuh"
#include "runner/api/point.hpp"

namespace runner::kernels::conv2d {

// Unnamed, like c_weights: each translation unit's kernels read the filter its own workload
// uploaded.
namespace {

// Shared-memory row pitch (floats) of a tile for blocks blockDim.x wide: at least blockDim.x + 2r,
// and congruent to blockDim.x modulo the 32 banks. Thread (tx, ty) reads word
// ty·pitch + tx + offset = tid + ty·(pitch − blockDim.x) + offset, so a warp's 32 consecutive
// thread ids hit 32 different banks whatever the block shape: no bank conflicts.
inline int tile_pitch(int block_x, int r) {
  return block_x + (2 * r + 31) / 32 * 32;
}

template <int KS>
__global__ void conv2d_shared(const float* __restrict__ in, float* __restrict__ out, int m, int n,
                              int pitch) {
  extern __shared__ float tile[];  // (blockDim.y + 2r) rows of `pitch` floats
  constexpr int r = KS / 2;
  const int bx = static_cast<int>(blockDim.x), by = static_cast<int>(blockDim.y);
  const int tx0 = static_cast<int>(threadIdx.x), ty0 = static_cast<int>(threadIdx.y);
  const int tile_w = bx + 2 * r, tile_h = by + 2 * r;
  const int j = static_cast<int>(blockIdx.x) * bx + tx0;
  const int col0 = static_cast<int>(blockIdx.x) * bx - r;  // image column of tile column 0
  // The loop condition depends on the block only, so every thread reaches each __syncthreads().
  for (int tile_y = static_cast<int>(blockIdx.y); tile_y * by < m;
       tile_y += static_cast<int>(gridDim.y)) {
    const int row0 = tile_y * by - r;  // image row of tile row 0
    // Cooperative load: the tile is larger than the block, so each thread strides over it.
    for (int ty = ty0; ty < tile_h; ty += by) {
      const int x = row0 + ty;
      const bool row_inside = x >= 0 && x < m;
      for (int tx = tx0; tx < tile_w; tx += bx) {
        const int y = col0 + tx;
        tile[ty * pitch + tx] =
            row_inside && y >= 0 && y < n ? in[static_cast<std::int64_t>(x) * n + y] : 0.0f;
      }
    }
    __syncthreads();
    const int i = tile_y * by + ty0;
    if (i < m && j < n) {
      const float* corner = tile + ty0 * pitch + tx0;  // tap (0, 0)
      float sum = 0.0f;
#pragma unroll
      for (int a = 0; a < KS; ++a) {
        const float* t = corner + a * pitch;
#pragma unroll
        for (int b = 0; b < KS; ++b) sum += t[b] * c_weights[a * KS + b];
      }
      out[static_cast<std::int64_t>(i) * n + j] = sum;
    }
    __syncthreads();  // everyone is done with this tile before the next one overwrites it
  }
}

using SharedKernel = void (*)(const float*, float*, int, int, int);

// One instance per odd filter side 1, 3, ..., kMaxKernelSize, indexed by ks / 2.
template <int... I>
constexpr std::array<SharedKernel, sizeof...(I)> shared_kernels(std::integer_sequence<int, I...>) {
  return {&conv2d_shared<2 * I + 1>...};
}
inline SharedKernel shared_kernel(int ks) {
  return shared_kernels(KernelSides{})[kernel_index(ks)];
}

// Dynamic shared memory of a tile for this block shape and filter side.
inline std::size_t shared_tile_bytes(const BlockShape& block, int ks) {
  const int r = ks / 2;
  return static_cast<std::size_t>(block.y + 2 * r) *
         static_cast<std::size_t>(tile_pitch(block.x, r)) * sizeof(float);
}

}  // namespace

}  // namespace runner::kernels::conv2d
