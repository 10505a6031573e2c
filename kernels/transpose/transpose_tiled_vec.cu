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
// Code paths, chosen per problem (the record's `path`):
//
// `aligned` (input rows n a multiple of kV, output rows m a multiple of a 32-byte sector): every
// tile row starts on a 16-byte boundary and every output row segment on a sector boundary. A tile
// wholly inside the matrix takes the unguarded vector path above; edge tiles check each access.
//
// `segments` (any other m×n). With rows that start anywhere in a sector, the writes of a tile
// row segment are partial sectors at both ends, which the L2 must merge with what DRAM holds:
// the aligned kernel's scheme, or the seed's tiled_rows, then run at 60-75 % of the copy on an
// H100 (float 4097², 8191²). This path moves the tile boundary instead: output row J's segment
// starts on a 32-byte boundary, at output column row0 − t_J with t_J = (J·m + row0) mod kA
// (kA = 32 bytes of elements), so every sector of the output but those at a row's two ends is
// written whole by one tile, with aligned 16-byte stores. A tile then needs input rows
// row0 − kA + 1 .. row0 + kSide − 1: the kA − 1 extra rows overlap the previous tile's and come
// from the L2. The load phase reads them element-wide (a warp: 32 consecutive elements of a row,
// wherever it starts) into a row-major shared tile; the store phase gathers each output vector
// from kV tile rows shifted by t_J. Every index is a compile-time offset from a per-thread base
// plus one shift per output row: no per-element arithmetic (the first version of this path put
// each element at its place in the segment while loading and was instruction-bound at 78 % SM
// throughput; docs/performance.md, "Log"). Where the matrix is large enough
// (tiled_vec_path), a block moves two tiles stacked along the rows, `segments, 2 tiles a block`,
// and the extra rows cost half as much.
//
// `strips, few rows` / `strips, few columns` (a side of kStripMax elements or fewer: 2 × 1 000 000,
// 1 000 000 × 3). A square tile of such a matrix holds that many live rows or columns of its
// kSide: a 2-row matrix kept 3 % of each block busy and ran at 10-20 % of the copy (H100, H200).
// A block moves a strip instead: all S rows of W consecutive columns (few rows) or all S columns
// of W consecutive rows (few columns), S · W ≤ 2048. On one side of the transpose a strip is
// one run of S · W consecutive elements (moved in 16-byte vectors for float), on the other S runs
// of W, and consecutive threads read and write consecutive elements of both
// (tiled_vec_strips_kernel).
//
// Beside the rule's path, the classic kernel of `tiled_rows` (scalar accesses through a padded
// 32 × 32 or 64 × 64 tile) is timed at set-up, and the fastest of the three runs (candidate_paths):
// at some shapes the classic kernel is the faster one (double 1100², a side of exactly 32 in
// float).
//
// cudaMalloc's 256-byte alignment makes every such vector 16-byte aligned.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/vector16.cuh"
#include "kernels/transpose/transpose_cuda_workload.hpp"
#include "kernels/transpose/transpose_tiled_rows.cuh"
#include "runner/api/cuda/fastest_launch.hpp"
#include "runner/api/gpu_info.hpp"
#include "runner/api/pinned_choice.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::transpose {

namespace {

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
  using Vec = typename Vector16<T>::type;
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

// The `segments` path (see the top of this file). A block moves kBands tiles stacked along the
// rows (kRows = kBands·kSide input rows; the kA − 1 extra rows are then read once per kRows). The
// shared tile holds input rows row0 − (kA − 1) .. row0 + kRows − 1 (tile rows lr = 0 ..
// kRowsIn − 1) of columns col0 .. col0 + kSide − 1, row-major, with kV elements of padding after
// every kV rows: row lr starts at lr·kSide + kV·⌊lr / kV⌋. Why that padding: the store phase's 8
// lanes of one output row read tile rows lr₀ + q·kV (q = 0..7, lr₀ = kA − 1 − t_j + e), whose
// padding puts them on 8 distinct bank groups, and the 4 (2 in double) output rows a warp reads
// differ in column j, the low bits of the bank: no conflict whatever t_j is. The load phase's lanes
// write consecutive columns of one row.
template <typename T, int kAlignBytes, int kBands>
struct SegmentTile : VecTile<T> {
  using G = VecTile<T>;
  static constexpr int kA = kAlignBytes / static_cast<int>(sizeof(T));  // segment alignment
  static constexpr int kRows = kBands * G::kSide;                       // input rows a tile
  static constexpr int kRowsIn = kRows + kA - 1;                        // tile rows loaded
  static constexpr int kLoadRowStep = G::kThreads / G::kSide;           // tile rows per load pass
  static constexpr int kLoads = (kRowsIn + kLoadRowStep - 1) / kLoadRowStep;
  static constexpr int kSharedElems = kRowsIn * G::kSide + G::kV * ((kRowsIn + G::kV - 1) / G::kV);
  // Store phase: step k of a thread writes output row j + k · kColStep of the same q; a multiple
  // of kA keeps that row's shift t_j, so the thread computes its addresses once.
  static constexpr int kColStep = 2 * G::kWarps;
  static_assert(kA % G::kV == 0 && (kA & (kA - 1)) == 0 && G::kThreads % G::kSide == 0);
  static_assert(kLoadRowStep % G::kV == 0 && kColStep % kA == 0);
};

// Where tile row lr (>= 0) starts in shared memory: lr·kSide + kV·⌊lr / kV⌋.
template <typename T>
__device__ __forceinline__ int segment_row_start(int lr) {
  using G = VecTile<T>;
  return lr * G::kSide + (lr & ~(G::kV - 1));
}

// Every per-load and per-store address below is the thread's base plus a compile-time offset
// (a multiply of 64-bit indices per load, as the first version of this path had, was most of its
// instructions: Nsight Compute counted 750 instructions a warp for a 64 × 64 float tile).
template <typename T, int kAlignBytes, int kBands>
__global__ void __launch_bounds__(VecTile<T>::kThreads)
    tiled_vec_segments_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t m,
                              std::int64_t n, unsigned tiles_x) {
  using G = SegmentTile<T, kAlignBytes, kBands>;
  constexpr int kV = G::kV, kSide = G::kSide, kA = G::kA, kStep = G::kLoadRowStep;
  __shared__ __align__(16) T tile[G::kSharedElems];

  const int t = static_cast<int>(threadIdx.x);
  const std::int64_t row0 = std::int64_t{blockIdx.x / tiles_x} * G::kRows;  // input rows
  const std::int64_t col0 = std::int64_t{blockIdx.x % tiles_x} * kSide;     // input columns

  // Load phase: thread t reads column col0 + cc of tile rows lr = first_lr + k · kStep, one
  // element per load: a warp reads 32 consecutive elements of one input row (128 or 256 bytes,
  // wherever the row starts) and stores them to consecutive shared words. Tile row lr + kStep
  // starts kStep · (kSide + 1) elements after row lr (kStep is a multiple of kV).
  const int cc = t % kSide, first_lr = t / kSide;
  const std::int64_t first_row = row0 - (kA - 1) + first_lr;
  const int shared_first = segment_row_start<T>(first_lr) + cc;
  constexpr int kSharedStep = kStep * (kSide + 1);
  // Loads k < kWhole are inside the tile for every thread; the last may reach past its rows.
  constexpr int kWhole = G::kRowsIn / kStep;
  const bool last_in = first_lr + kWhole * kStep < G::kRowsIn;
  const bool interior = row0 >= kA - 1 && row0 + G::kRows <= m && col0 + kSide <= n;
  // (src is only dereferenced where the row and column are inside the matrix.)
  const T* src = in + first_row * n + col0 + cc;
  const std::int64_t src_step = kStep * n;
  T v[G::kLoads];
  if (interior) {
#pragma unroll
    for (int k = 0; k < G::kLoads; ++k) {
      v[k] = k < kWhole || last_in ? *src : T(0);
      src += src_step;
    }
  } else {
    const bool col_in = col0 + cc < n;
#pragma unroll
    for (int k = 0; k < G::kLoads; ++k) {
      const std::int64_t i = first_row + k * kStep;
      // Rows before 0 or from m on and columns from n on are never stored (the store phase
      // guards the same bounds); they are zeros here only to keep every shared word defined.
      v[k] = (k < kWhole || last_in) && col_in && i >= 0 && i < m ? *src : T(0);
      src += src_step;
    }
  }
#pragma unroll
  for (int k = 0; k < G::kLoads; ++k)
    if (k < kWhole || last_in) tile[shared_first + k * kSharedStep] = v[k];
  __syncthreads();

  // Store phase: output row J = col0 + j's segment starts on a kA boundary, t_j elements before
  // output column row0: t_j = (J·m + row0) mod kA. Vector q of it is input rows row0 − t_j + q·kV
  // + e (tile rows kA − 1 − t_j + q·kV + e) of column j, gathered element by element; one aligned
  // 16-byte store writes it, 8 lanes 128 contiguous bytes of one output row.
  const int lane = t % 32, warp = t / 32;
  const int j = (warp >> 1) * 4 + lane / 8, q = (warp & 1) * 8 + lane % 8;
  const int m_mod = static_cast<int>(m % kA);
  const int t_j = static_cast<int>((col0 * m + row0 + std::int64_t{j} * m_mod) % kA);
  const int lr0 = kA - 1 - t_j + q * kV;
  int gather[kV];  // shared index of element e of output row j (k = 0)
#pragma unroll
  for (int e = 0; e < kV; ++e) gather[e] = segment_row_start<T>(lr0 + e) + j;
  const std::int64_t cols_left = n - col0 - j;  // output rows j + k·kColStep < n are stored
  const std::int64_t dst_step = G::kColStep * m;
#pragma unroll
  for (int band = 0; band < kBands; ++band) {
    const std::int64_t i0 = row0 + band * kSide - t_j + q * kV;  // output column of element 0
    const bool whole = i0 >= 0 && i0 + kV <= m;
    T* dst = out + (col0 + j) * m + i0;  // 16-byte aligned: (col0 + j)·m + i0 ≡ 0 mod kA
    // Tile row lr + kSide starts kSide · (kSide + 1) elements after row lr.
    const int band_offset = band * kSide * (kSide + 1);
#pragma unroll
    for (int k = 0; k < G::kPerThread; ++k) {
      if (k * G::kColStep < cols_left) {
        T e_val[kV];
#pragma unroll
        for (int e = 0; e < kV; ++e) e_val[e] = tile[gather[e] + band_offset + k * G::kColStep];
        if (whole) {
          store_vector(dst, e_val);
        } else {
#pragma unroll
          for (int e = 0; e < kV; ++e)
            if (i0 + e >= 0 && i0 + e < m) dst[e] = e_val[e];
        }
      }
      dst += dst_step;
    }
  }
}

// The `strips` paths: a side of at most kStripMax elements (S); a block of Threads threads moves a
// strip of S × W elements, W = Threads · PerThread / S, PerThread a thread, all of a thread's loads
// issued before its first shared-memory store. The strip's size and the block's, measured on an
// H200 (docs/performance.md, "Log"): strips of 2048 elements; 512 threads of 4 for double, 256 of
// 8 for float, whose two 16-byte accesses a thread on the run side keep as many bytes in flight as
// double's four 8-byte ones (512 of 4 held one: 400009 × 31 78 %, 2000003 × 8 78 % of the copy,
// against 85 % and 90 %). The first version's 4096 (256 threads of 16, element-wide) held 62–93
// registers a thread and 2–4 blocks an SM, and ran at 69–85 % of the copy.
constexpr int kStripMax = 32;
// Where the short side is a little longer (33 to this), the strips path is timed at set-up beside
// the rule's tile path and the classic kernel (candidate_paths): on an H200 every kernel ran
// float 33 × 31776 and 33 × 100003 at 72–85 % of the copy, a side of 33 leaving a tile of 32 a
// second, nearly empty row of tiles. A strip of 33 rows is 60 columns (W a multiple of 4), of 64
// rows 32: runs of 240 and 128 bytes on the strip's other side.
constexpr int kStripTimedMax = 64;

// (a, b) = (e / r, e % r) of a thread's linear index e in a strip, advanced by Threads per step
// without a division (r is a run-time row length).
template <int Threads>
struct StripWalk {
  int a, b, step_a, step_b, r;
  __device__ StripWalk(int e, int r_)
      : a(e / r_), b(e % r_), step_a(Threads / r_), step_b(Threads % r_), r(r_) {}
  __device__ void advance() {
    a += step_a;
    b += step_b;
    if (b >= r) {
      b -= r;
      ++a;
    }
  }
};

// The contiguous side of a strip moved V elements an access: T itself (V = 1) or the 16-byte
// vector of T.
template <typename T, int V>
struct StripAccess {
  using type = typename Vector16<T>::type;
  static_assert(V * sizeof(T) == 16, "V elements make one 16-byte vector");
};
template <typename T>
struct StripAccess<T, 1> {
  using type = T;
};

// Strip `blockIdx.x` of a matrix whose short side S (m where kFewRows, else n) is at most
// kStripMax: W = `width` positions along the long side, w of them inside the matrix. The shared
// strip holds row r of the S short-side lines at r · (W + 1): the pad spreads the store phase's
// reads of consecutive lines over the banks.
// - Few rows (m = S): input rows 0..S−1, columns first..first+w−1 are S runs of w; output rows
//   first..first+w−1, each S long, are one run of S · w.
// - Few columns (n = S): input rows first..first+w−1, each S long, are one run; output rows
//   0..S−1, columns first..first+w−1 are S runs of w.
// The one run (the output with few rows, the input with few columns) moves V elements an access:
// it starts at first · S, a multiple of V where W is (tiled_vec_path), so every access is aligned;
// a last strip's count not a multiple of V ends element by element.
template <typename T, bool kFewRows, int Threads, int PerThread, int V>
__global__ void __launch_bounds__(Threads)
    tiled_vec_strips_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t m,
                            std::int64_t n, unsigned width) {
  static_assert(PerThread % V == 0, "a thread moves whole accesses");
  using Access = typename StripAccess<T, V>::type;
  constexpr int kAccesses = PerThread / V;                   // a thread's accesses on the run side
  __shared__ T strip[Threads * PerThread + kStripTimedMax];  // S · (W + 1), S ≤ kStripTimedMax
  const int W = static_cast<int>(width), pitch = W + 1;
  const int S = static_cast<int>(kFewRows ? m : n);
  const std::int64_t first = std::int64_t{blockIdx.x} * W, length = kFewRows ? n : m;
  const int w = static_cast<int>(length - first < W ? length - first : W);
  const int t = static_cast<int>(threadIdx.x), count = S * w;
  const int accesses = count / V, tail = accesses * V;  // whole accesses, then count − tail

  if constexpr (kFewRows) {
    T v[PerThread];
    int at[PerThread];           // where v[k] goes in the shared strip
    StripWalk<Threads> p(t, w);  // (row, column − first) of input element e = row · w + ...
#pragma unroll
    for (int k = 0; k < PerThread; ++k) {
      if (t + k * Threads < count) v[k] = in[p.a * n + first + p.b];
      at[k] = p.a * pitch + p.b;
      p.advance();
    }
#pragma unroll
    for (int k = 0; k < PerThread; ++k)
      if (t + k * Threads < count) strip[at[k]] = v[k];
  } else {
    // Access j holds input elements first · S + jV .. + V − 1: (row − first, column) from q.
    const Access* run = reinterpret_cast<const Access*>(in + first * S);
    Access v[kAccesses];
#pragma unroll
    for (int k = 0; k < kAccesses; ++k)
      if (t + k * Threads < accesses) v[k] = run[t + k * Threads];
    StripWalk<Threads * V> q(t * V, S);
#pragma unroll
    for (int k = 0; k < kAccesses; ++k) {
      if (t + k * Threads < accesses) {
        const T* x = reinterpret_cast<const T*>(&v[k]);
        int a = q.a, b = q.b;
#pragma unroll
        for (int u = 0; u < V; ++u) {
          strip[b * pitch + a] = x[u];
          if (++b == S) b = 0, ++a;
        }
      }
      q.advance();
    }
    if (t < count - tail) {
      const int e = tail + t;
      strip[(e % S) * pitch + e / S] = in[first * S + e];
    }
  }
  __syncthreads();

  if constexpr (kFewRows) {
    // Access j holds output elements first · S + jV .. + V − 1: (row − first, column) from q.
    Access* run = reinterpret_cast<Access*>(out + first * S);
    StripWalk<Threads * V> q(t * V, S);
#pragma unroll
    for (int k = 0; k < kAccesses; ++k) {
      if (t + k * Threads < accesses) {
        Access y;
        T* x = reinterpret_cast<T*>(&y);
        int a = q.a, b = q.b;
#pragma unroll
        for (int u = 0; u < V; ++u) {
          x[u] = strip[b * pitch + a];
          if (++b == S) b = 0, ++a;
        }
        run[t + k * Threads] = y;
      }
      q.advance();
    }
    if (t < count - tail) {
      const int e = tail + t;
      out[first * S + e] = strip[(e % S) * pitch + e / S];
    }
  } else {
    StripWalk<Threads> q(t, w);  // (output row, column − first) of output element e = row · w + ...
#pragma unroll
    for (int k = 0; k < PerThread; ++k) {
      if (t + k * Threads < count) out[q.a * m + first + q.b] = strip[q.a * pitch + q.b];
      q.advance();
    }
  }
}

// Alignment of the output segments of the `segments` path: 32 bytes, one sector. The least
// alignment that makes every write a whole sector is also the cheapest: a segment of kA elements
// costs kA − 1 extra input rows per tile. On an H200 (docs/performance.md, "Log"), 32-byte
// segments beat 64 and 128 at every odd size, float and double.
constexpr int kSegmentAlign = 32;

// A code path for one problem (the record's `path`): its kernel, block, grid (the last kernel
// argument: tiles along the columns for the tile paths, the strip width for the strips) and
// dynamic shared memory.
template <typename T>
struct TiledVecPath {
  using Kernel = void (*)(const T*, T*, std::int64_t, std::int64_t, unsigned);
  Kernel kernel;
  BlockShape block;
  TileGrid grid;
  const char* name;
  std::size_t shared_bytes = 0;
};

// A strips path (few rows: m ≤ n), its block and its strip width from the kernel's own Threads and
// PerThread: a strip of W = Threads · PerThread / S elements a row (S the short side), W a multiple
// of V so that every strip's run starts on a 16-byte boundary. The launch and the kernel's shared
// strip (Threads · PerThread + kStripTimedMax elements) cannot disagree. S ≤ kStripTimedMax.
template <typename T, bool kFewRows, int Threads, int PerThread, int V>
TiledVecPath<T> strips_path(const ProblemSize& s) {
  const std::int64_t width = Threads * PerThread / (kFewRows ? s.m : s.n) / V * V;
  const TileGrid grid = tile_grid(kFewRows ? s.n : s.m, width, 1, 1);
  return {&tiled_vec_strips_kernel<T, kFewRows, Threads, PerThread, V>, BlockShape{Threads, 1},
          TileGrid{static_cast<unsigned>(width), grid.blocks},
          kFewRows ? "strips, few rows" : "strips, few columns"};
}

// The strips path of a matrix whose short side is at most kStripTimedMax (the rule's below
// kStripMax, a timed candidate above it).
template <typename T>
TiledVecPath<T> strips_path_of(const ProblemSize& s) {
  // Float moves the strip's one run in 16-byte vectors (4 floats), 256 threads of 8 (two
  // vectors a thread); double element by element (8 bytes already ran at 94–105 % of the copy),
  // 512 threads of 4. Measured on an H200 against the other splits of 1024–4096 elements
  // (docs/performance.md, "Log"): each of them fell 5 points or more behind these at some shape,
  // but 128 threads of 8 with few rows, which ran within 3 points of 256 of 8 at every shape.
  if constexpr (sizeof(T) == 4) {
    if (s.m > s.n) return strips_path<T, false, 256, 8, 4>(s);
    return strips_path<T, true, 256, 8, 4>(s);
  }
  if (s.m > s.n) return strips_path<T, false, 512, 4, 1>(s);
  return strips_path<T, true, 512, 4, 1>(s);
}

// A side of kStripMax or fewer: strips. Input rows (n) on 16-byte boundaries and output rows (m)
// on 32-byte sector boundaries: aligned. Anything else: segments, two tiles a block (kSide
// columns × 2·kSide rows) where the matrix still gives every SM two such blocks (they halve the
// share of the kA − 1 extra rows a tile reads: float 8191² 90 → 92 %, 2047² 95 → 101 % of the
// copy on an H200), one tile a block below that (1025²: 100 % against 93 % with two, whose 153
// blocks leave SMs idle). The segments' tiles reach kA − 1 rows past m (a segment of output row J
// starts up to kA − 1 columns before its tile, so the last tile row ends that much early).
template <typename T>
TiledVecPath<T> tiled_vec_path(const ProblemSize& s, int sm_count) {
  using G = VecTile<T>;
  using One = SegmentTile<T, kSegmentAlign, 1>;
  using Two = SegmentTile<T, kSegmentAlign, 2>;
  if (std::min(s.m, s.n) <= kStripMax) return strips_path_of<T>(s);
  if (s.n % G::kV == 0 && s.m % One::kA == 0)
    return {&tiled_vec_kernel<T>, BlockShape{G::kThreads, 1},
            tile_grid(s.n, G::kSide, s.m, G::kSide), "aligned"};
  const std::int64_t reach = One::kA - 1;
  const TileGrid tall = tile_grid(s.n, G::kSide, s.m + reach, Two::kRows);
  if (s.m >= 2 * Two::kRows && tall.blocks >= 2 * std::int64_t{sm_count})
    return {&tiled_vec_segments_kernel<T, kSegmentAlign, 2>, BlockShape{G::kThreads, 1}, tall,
            "segments, 2 tiles a block"};
  return {&tiled_vec_segments_kernel<T, kSegmentAlign, 1>, BlockShape{G::kThreads, 1},
          tile_grid(s.n, G::kSide, s.m + reach, One::kRows), "segments"};
}

// The classic kernel (transpose_tiled_rows.cuh: `tiled_rows`' kernel), kTile × kTile tiles of
// kTile × kRows threads, scalar loads and stores through a padded tile.
template <typename T, int kTile, int kRows>
TiledVecPath<T> classic_path(const ProblemSize& s, const char* name) {
  return {&tiled_rows_kernel<T, kTile, kRows>, BlockShape{kTile, kRows},
          tile_grid(s.n, kTile, s.m, kTile), name, tiled_rows_shared_bytes<T>(kTile)};
}

// RUNNER_TILED_VEC_KERNEL=vector|classic32|classic64 pins one kernel: the 16-byte-vector path
// the shape rule above picks, or the classic kernel with 32 × 32 tiles of 32 × 8 threads or 64 × 64
// of 64 × 8. Unset, the three are timed at set-up and the fastest runs (four where the short
// side is kStripMax + 1 to kStripTimedMax: the strips too; `vector` pins the rule's path there).
// The rule's path is not the fastest everywhere: on an H200 (docs/performance.md, "Log") the
// classic kernel ran double 1100² at 100.6 % of the copy against the `aligned` path's 88.1 %,
// double 33 × 100003 (64 × 64 tiles) at 92.5 % against `segments`' 80.8 %, float 32 × 131072 at 103
// % against the strips' 92 %; elsewhere the vector paths lead by up to 20 points (float 1100², 33 ×
// 100003, 100 × 20000). A tuned variant must not lose to the simpler kernel it was built to beat:
// measuring both on the device is the one rule that holds on every GPU.
constexpr const char* kPinKernel = "RUNNER_TILED_VEC_KERNEL";

template <typename T>
std::vector<TiledVecPath<T>> candidate_paths(const ProblemSize& s, int sm_count) {
  const std::optional<std::size_t> pinned =
      pinned_choice(kPinKernel, {"vector", "classic32", "classic64"},
                    "the fastest of the three, timed at set-up");
  std::vector<TiledVecPath<T>> paths;
  if (!pinned || *pinned == 0) paths.push_back(tiled_vec_path<T>(s, sm_count));
  // Unpinned, a short side of kStripMax + 1 to kStripTimedMax also times the strips.
  const std::int64_t short_side = std::min(s.m, s.n);
  if (!pinned && short_side > kStripMax && short_side <= kStripTimedMax)
    paths.push_back(strips_path_of<T>(s));
  if (!pinned || *pinned == 1)
    paths.push_back(classic_path<T, 32, 8>(s, "classic 32x32 tiles, 32x8 threads"));
  if (!pinned || *pinned == 2)
    paths.push_back(classic_path<T, 64, 8>(s, "classic 64x64 tiles, 64x8 threads"));
  return paths;
}

template <typename T>
class TiledVec final : public CudaTranspose<T> {
 public:
  TiledVec(const Point& point, std::shared_ptr<const Problem> problem)
      : TiledVec(point, std::move(problem), candidate_paths<T>(*point.size, gpu_info().sm_count)) {}

  void run() override { launch(path_); }

  nlohmann::json extra_fields() const override {
    nlohmann::json fields = CudaTranspose<T>::extra_fields();
    fields["path"] = path_.name;
    if (!choice_.empty()) fields["message"] = choice_;
    return fields;
  }

 private:
  // (The base class checks the first path's launch before anything is allocated; the others are
  // checked here, and timed on the point's buffers once they exist.)
  TiledVec(const Point& point, std::shared_ptr<const Problem> problem,
           std::vector<TiledVecPath<T>> paths)
      : CudaTranspose<T>(point, std::move(problem),
                         {reinterpret_cast<const void*>(paths.front().kernel),
                          paths.front().shared_bytes, paths.front().block}) {
    for (std::size_t i = 1; i < paths.size(); ++i)
      cuda::require_launchable(paths[i].block, paths[i].shared_bytes,
                               reinterpret_cast<const void*>(paths[i].kernel));
    path_ = cuda::fastest_candidate(
        std::move(paths), "kernels", this->stream(), point.measure,
        [this](const TiledVecPath<T>& p) { launch(p); },
        [](const TiledVecPath<T>& p) { return std::string(p.name); }, choice_);
  }

  void launch(const TiledVecPath<T>& p) {
    const dim3 block(static_cast<unsigned>(p.block.x), static_cast<unsigned>(p.block.y));
    this->note_launch(dim3(p.grid.blocks), block);
    p.kernel<<<p.grid.blocks, block, p.shared_bytes, this->stream()>>>(
        this->in_.data(), this->out_.data(), this->m(), this->n(), p.grid.tiles_x);
    RUNNER_CUDA_CHECK_LAUNCH();
  }

  TiledVecPath<T> path_{};
  std::string choice_;  // how path_ was chosen, where the kernels were timed
};

}  // namespace

RUNNER_FACTORY(tiled_vec, by_dtype<TiledVec>);

}  // namespace runner::kernels::transpose
