// transpose tiled_vec: a shared-memory transpose whose global reads AND writes are 16-byte vectors
// (float4 / double2), several per thread, with a fixed tuned tile and block (no block axis).
//
// Tile: kSide × kSide elements, kSide · sizeof(T) = 256 bytes (64 floats, 32 doubles), so a tile
// row is kRowVecs = 16 vectors of kV = 16 / sizeof(T) elements, in float and double alike. A block
// of kThreads = 16 · kSide / 4 threads (256 in float, 128 in double) moves one tile, 4 vectors per
// thread each way:
//   load   thread t reads vector column c = t % 16 of tile rows t / 16 + k · (kThreads / 16),
//          k = 0..3: each half-warp reads one 256-byte row segment (coalesced), all four loads in
//          flight before the first shared-memory store;
//   store  lane l of warp w writes, for k = 0..3 and u = w + k · (kThreads / 32), the output
//          vector q = (u & 1) · 8 + l % 8 of output row (tile column) j = (u >> 1) · 4 + l / 8:
//          input rows q·kV .. q·kV + kV − 1 of tile column j, gathered from shared memory
//          element by element. Each instruction writes 4 output rows × 128 contiguous bytes.
//
// Shared memory is unpadded (kSide² elements, 16 KB float, 8 KB double) and swizzled by vector:
// element (row, col) lives in vector slot (col / kV) ^ ((row / kV) & 7) of its row. Then
//   - the 16-byte stores of the load phase, whose 8-lane phases cover 8 consecutive vector slots of
//     one row, hit 8 distinct slots of the 32 banks (no conflict);
//   - the 4-byte (8-byte) reads of the store phase, where the 8 lanes with the same l / 8 read rows
//     q·kV + e of 8 consecutive q (distinct (row / kV) & 7) and the 4 (2 per half-warp in double)
//     lane groups read 4 consecutive columns j, hit 32 distinct banks (no conflict).
// A padding column could not do this: rows must stay 16-byte aligned for the vector stores, and a
// pad of 4 floats still maps the rows 4q + e of 16 consecutive q onto 2 banks.
//
// Any m×n: a tile that is wholly inside the matrix, of a matrix whose row lengths n (input) and m
// (output) are multiples of kV, takes the unguarded vector path. Every other tile checks each
// access and uses a vector only where the row length is a multiple of kV (then every vector of a
// tile row starts kV-aligned, inside or wholly outside the matrix), single elements elsewhere.
// cudaMalloc's 256-byte alignment makes every such vector 16-byte aligned.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/transpose/transpose_cuda_workload.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::transpose {

namespace {

template <typename T>
struct Vec16;
template <>
struct Vec16<float> {
  using type = float4;
};
template <>
struct Vec16<double> {
  using type = double2;
};

template <typename T>
struct VecTile {
  static constexpr int kV = 16 / static_cast<int>(sizeof(T));      // elements per vector
  static constexpr int kSide = 256 / static_cast<int>(sizeof(T));  // tile side, elements
  static constexpr int kRowVecs = kSide / kV;                      // vectors per tile row: 16
  static constexpr int kPerThread = 4;                             // vectors a thread moves
  static constexpr int kThreads = kSide * kRowVecs / kPerThread;   // 256 float, 128 double
  static constexpr int kLoadRowStep = kThreads / kRowVecs;         // tile rows per load pass
  static constexpr int kWarps = kThreads / 32;
  static_assert(kRowVecs == 16 && kThreads % 32 == 0);
  // The store phase covers 2 halves of 8 output vectors × kSide / 4 groups of 4 columns.
  static_assert(kWarps * kPerThread == 2 * (kSide / 4));
};

// Index in the shared tile of element (row, col), swizzled by 16-byte vector (see above).
template <typename T>
__device__ __forceinline__ int swizzled(int row, int col) {
  using G = VecTile<T>;
  return row * G::kSide + (((col / G::kV) ^ ((row / G::kV) & 7)) * G::kV) + col % G::kV;
}

// One 16-byte store of kV elements to a 16-byte-aligned address. __stwb is the ordinary
// write-back store (st.global.wb); a plain assignment through a float4 pointer was split by the
// compiler into 4 scalar stores here (nvcc 13.0), which is what this variant exists to avoid.
__device__ __forceinline__ void store_vector(float* dst, const float (&v)[4]) {
  __stwb(reinterpret_cast<float4*>(dst), make_float4(v[0], v[1], v[2], v[3]));
}
__device__ __forceinline__ void store_vector(double* dst, const double (&v)[2]) {
  __stwb(reinterpret_cast<double2*>(dst), make_double2(v[0], v[1]));
}

template <typename T>
__global__ void __launch_bounds__(VecTile<T>::kThreads)
    tiled_vec_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t m, std::int64_t n,
                     unsigned tiles_x) {
  using G = VecTile<T>;
  using Vec = typename Vec16<T>::type;
  constexpr int kV = G::kV, kSide = G::kSide;
  __shared__ __align__(16) T tile[kSide * kSide];

  const int t = static_cast<int>(threadIdx.x);
  const std::int64_t row0 = std::int64_t{blockIdx.x / tiles_x} * kSide;  // input rows
  const std::int64_t col0 = std::int64_t{blockIdx.x % tiles_x} * kSide;  // input columns
  // Load phase: vector column c of tile rows load_row + k · kLoadRowStep.
  const int c = t % G::kRowVecs, load_row = t / G::kRowVecs;
  // Store phase: output vector q (input rows q·kV ..) of output rows j0 + 4 · (k-dependent).
  const int lane = t % 32, warp = t / 32;
  const int q_lo = lane % 8, jj = lane / 8;

  const bool vec_in = n % kV == 0, vec_out = m % kV == 0;
  const bool fast = vec_in && vec_out && row0 + kSide <= m && col0 + kSide <= n;  // block-uniform

  if (fast) {
    const T* src = in + (row0 + load_row) * n + col0 + c * kV;
    Vec v[G::kPerThread];
#pragma unroll
    for (int k = 0; k < G::kPerThread; ++k)
      v[k] = *reinterpret_cast<const Vec*>(src + std::int64_t{k} * G::kLoadRowStep * n);
#pragma unroll
    for (int k = 0; k < G::kPerThread; ++k) {
      const int row = load_row + k * G::kLoadRowStep;
      *reinterpret_cast<Vec*>(&tile[swizzled<T>(row, c * kV)]) = v[k];
    }
  } else {
#pragma unroll
    for (int k = 0; k < G::kPerThread; ++k) {
      const int row = load_row + k * G::kLoadRowStep;
      const std::int64_t grow = row0 + row, gcol = col0 + c * kV;
      if (grow >= m) continue;
      const T* src = in + grow * n + gcol;
      if (vec_in && gcol < n) {
        // n % kV == 0 and gcol % kV == 0: the whole vector is inside the row, and aligned.
        *reinterpret_cast<Vec*>(&tile[swizzled<T>(row, c * kV)]) =
            *reinterpret_cast<const Vec*>(src);
      } else {
#pragma unroll
        for (int e = 0; e < kV; ++e)
          if (gcol + e < n) tile[swizzled<T>(row, c * kV + e)] = src[e];
      }
    }
  }
  __syncthreads();

#pragma unroll
  for (int k = 0; k < G::kPerThread; ++k) {
    const int u = warp + k * G::kWarps;
    const int q = (u & 1) * 8 + q_lo, j = (u >> 1) * 4 + jj;
    T e_val[kV];
#pragma unroll
    for (int e = 0; e < kV; ++e) e_val[e] = tile[swizzled<T>(q * kV + e, j)];
    const std::int64_t orow = col0 + j, ocol = row0 + q * kV;  // output row, first column
    T* dst = out + orow * m + ocol;
    if (fast) {
      store_vector(dst, e_val);
    } else if (orow < n) {
      // Elements of input rows ≥ m or columns ≥ n were never loaded; none of them is stored.
      if (vec_out && ocol < m) {
        store_vector(dst, e_val);
      } else {
#pragma unroll
        for (int e = 0; e < kV; ++e)
          if (ocol + e < m) dst[e] = e_val[e];
      }
    }
  }
}

template <typename T>
class TiledVec final : public CudaTranspose<T> {
 public:
  using G = VecTile<T>;
  TiledVec(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaTranspose<T>(
            point, std::move(problem),
            {reinterpret_cast<const void*>(&tiled_vec_kernel<T>), 0, BlockShape{G::kThreads, 1}}),
        grid_(tile_grid(this->n(), G::kSide, this->m(), G::kSide)) {}

  void run() override {
    tiled_vec_kernel<T><<<grid_.blocks, G::kThreads, 0, this->stream()>>>(
        this->in_.data(), this->out_.data(), this->m(), this->n(), grid_.tiles_x);
    RUNNER_CUDA_CHECK_LAUNCH();
  }

 private:
  TileGrid grid_;
};

}  // namespace

RUNNER_FACTORY(tiled_vec, by_dtype<TiledVec>);

}  // namespace runner::kernels::transpose
