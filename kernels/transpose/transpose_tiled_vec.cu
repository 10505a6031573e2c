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
// Two code paths, chosen per problem (the record's `path`):
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
// from the L2. The load phase reads each row with aligned 16-byte loads (17 where the row does not
// start on a vector, 16 otherwise; consecutive lanes, consecutive vectors) and puts element (i, J)
// straight at its place in the shared segment of J; the store phase reads each 16-byte output
// vector from shared memory with one vector load. On an H200 this path is instruction-bound: the
// per-element placement is most of its instructions (unsigned masks instead of signed modulo
// lifted float 4097² from 66 to 78 % of the copy).
//
// cudaMalloc's 256-byte alignment makes every such vector 16-byte aligned.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/common/vector16.cuh"
#include "kernels/transpose/transpose_cuda_workload.hpp"
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

// The `segments` path (see the top of this file): output row segments that start on kAlignBytes
// boundaries, gathered in shared memory as S[j][p] (output row j of the tile, position p of its
// segment), each 16-byte slot of a row swizzled by the row (slot ^ ((j / kV) & 7)).
template <typename T, int kAlignBytes>
struct SegmentTile : VecTile<T> {
  using G = VecTile<T>;
  static constexpr int kA = kAlignBytes / static_cast<int>(sizeof(T));  // segment alignment
  // Input rows row0 − kA + 1 .. row0 + kSide − 1 can land in a segment: rows lr = 1 .. kSide + kA
  // − 1.
  static constexpr int kRowsIn = G::kSide + kA;
  // Aligned 16-byte vectors that cover a row's kSide columns wherever the row starts.
  static constexpr int kRowVecsIn = G::kRowVecs + 1;
  static constexpr int kLoads = ((kRowsIn - 1) * kRowVecsIn + G::kThreads - 1) / G::kThreads;
  static_assert(kA % G::kV == 0 && (kA & (kA - 1)) == 0);
};

// Slot swizzle by j / kV: in the load phase the lanes of a warp write one element each to the
// same position p of segments j = kV·L + e (L the lane's vector in the row), so the slot must
// differ with L, or they meet in one bank (j & 15 gave 4 distinct slots: 8-way conflicts).
template <typename T>
__device__ __forceinline__ int segment_index(int j, int p) {
  using G = VecTile<T>;
  const unsigned uj = static_cast<unsigned>(j), up = static_cast<unsigned>(p);
  const unsigned slot_key = (uj / G::kV) & 7u;
  return static_cast<int>(uj * G::kSide + (((up / G::kV) ^ slot_key) * G::kV) + up % G::kV);
}

template <typename T, int kAlignBytes>
__global__ void __launch_bounds__(VecTile<T>::kThreads)
    tiled_vec_segments_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t m,
                              std::int64_t n, unsigned tiles_x) {
  using G = SegmentTile<T, kAlignBytes>;
  using Vec = typename Vector16<T>::type;
  constexpr int kV = G::kV, kSide = G::kSide, kA = G::kA;
  __shared__ __align__(16) T tile[kSide * kSide];

  const int t = static_cast<int>(threadIdx.x);
  const std::int64_t row0 = std::int64_t{blockIdx.x / tiles_x} * kSide;  // input rows
  const std::int64_t col0 = std::int64_t{blockIdx.x % tiles_x} * kSide;  // input columns
  const std::int64_t total = m * n;
  // t_c = ((col0 + c)·m + row0) mod kA: where output row col0 + c's segment starts.
  const int t0 = static_cast<int>((col0 * m + row0) % kA);
  const int m_mod = static_cast<int>(m % kA);

  // Load phase: item (lr, v) is the v-th aligned 16-byte vector around input row
  // i = row0 − kA + lr's columns col0 .., which starts s_i elements before column col0. Consecutive
  // threads take consecutive vectors of a row: a warp reads ~2 rows × 272 contiguous bytes.
  // Element (i, J = col0 + c) goes to position p = lr − kA + t_c of segment c, if inside it.
  Vec v[G::kLoads];
  int item_row[G::kLoads], item_shift[G::kLoads];
#pragma unroll
  for (int k = 0; k < G::kLoads; ++k) {
    const int item = t + k * G::kThreads;
    const int lr = 1 + item / G::kRowVecsIn, vec = item % G::kRowVecsIn;
    const std::int64_t i = row0 - kA + lr;
    item_row[k] = -1;  // nothing loaded
    if (lr >= G::kRowsIn || i < 0 || i >= m) continue;
    const std::int64_t first = i * n + col0;
    const int s_i = static_cast<int>(first) & (kV - 1);  // first >= 0, kV a power of two
    if (vec == G::kRowVecs && s_i == 0) continue;  // the extra vector is for shifted rows only
    const std::int64_t at = first - s_i + std::int64_t{vec} * kV;
    if (at + kV <= total) {
      v[k] = *reinterpret_cast<const Vec*>(in + at);
    } else {
      T* e_val = reinterpret_cast<T*>(&v[k]);
#pragma unroll
      for (int e = 0; e < kV; ++e) e_val[e] = at + e < total ? in[at + e] : T(0);
    }
    item_row[k] = lr;
    item_shift[k] = vec * kV - s_i;  // column c of element e is item_shift + e
  }
  // Columns of this tile inside the matrix (fewer in the last tile of a row). The per-element
  // work below is most of this kernel's instructions: unsigned compares and masks, no 64-bit.
  const unsigned cols_in = static_cast<unsigned>(n - col0 < kSide ? n - col0 : kSide);
#pragma unroll
  for (int k = 0; k < G::kLoads; ++k) {
    if (item_row[k] < 0) continue;
    const T* e_val = reinterpret_cast<const T*>(&v[k]);
    const int p_base = item_row[k] - kA;  // p = p_base + t_c
    // t_c = (t0 + c·m_mod) mod kA, kA a power of two: a mask (wrap-around keeps it exact)
    const unsigned t_base =
        static_cast<unsigned>(t0) + static_cast<unsigned>(item_shift[k] * m_mod);
#pragma unroll
    for (int e = 0; e < kV; ++e) {
      const int c = item_shift[k] + e;
      if (static_cast<unsigned>(c) >= cols_in) continue;
      const int p =
          p_base + static_cast<int>((t_base + static_cast<unsigned>(e * m_mod)) & (kA - 1));
      if (static_cast<unsigned>(p) < static_cast<unsigned>(kSide))
        tile[segment_index<T>(c, p)] = e_val[e];
    }
  }
  __syncthreads();

  // Store phase: vector q of segment j, 16-byte loads from the shared row (8 lanes read 128
  // contiguous bytes of one row) and one aligned 16-byte store; guarded element by element only
  // where the segment leaves the matrix.
  const int lane = t % 32, warp = t / 32;
#pragma unroll
  for (int k = 0; k < G::kPerThread; ++k) {
    const int u = warp + k * G::kWarps;
    const int j = (u >> 1) * 4 + lane / 8, q = (u & 1) * 8 + lane % 8;
    const std::int64_t col = col0 + j;  // output row
    if (col >= n) continue;
    const int t_j =
        static_cast<int>((static_cast<unsigned>(t0) + static_cast<unsigned>(j * m_mod)) & (kA - 1));
    const std::int64_t start = col * m + row0 - t_j;  // the segment's first element, aligned
    const std::int64_t i0 = row0 - t_j + q * kV;      // output column of element 0 of the vector
    const Vec val = *reinterpret_cast<const Vec*>(&tile[segment_index<T>(j, q * kV)]);
    T* dst = out + start + q * kV;
    if (i0 >= 0 && i0 + kV <= m) {
      __stwb(reinterpret_cast<Vec*>(dst), val);
    } else {
      const T* e_val = reinterpret_cast<const T*>(&val);
#pragma unroll
      for (int e = 0; e < kV; ++e)
        if (i0 + e >= 0 && i0 + e < m) dst[e] = e_val[e];
    }
  }
}

// Alignment of the output segments of the `segments` path: 32 bytes, one sector. The least
// alignment that makes every write a whole sector is also the cheapest: a segment of kA elements
// costs kA − 1 extra input rows per tile. On an H200 (docs/performance.md, "Log"), 32-byte
// segments beat 64 and 128 at every odd size, float and double.
constexpr int kSegmentAlign = 32;

template <typename T>
class TiledVec final : public CudaTranspose<T> {
 public:
  using G = VecTile<T>;
  TiledVec(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaTranspose<T>(
            point, std::move(problem),
            {reinterpret_cast<const void*>(kernel_for(point)), 0, BlockShape{G::kThreads, 1}}),
        kernel_(kernel_for(point)),
        grid_(tile_grid(this->n(), G::kSide, this->m() + segment_reach(), G::kSide)) {}

  void run() override {
    this->note_launch(dim3(grid_.blocks), dim3(G::kThreads));
    kernel_<<<grid_.blocks, G::kThreads, 0, this->stream()>>>(this->in_.data(), this->out_.data(),
                                                              this->m(), this->n(), grid_.tiles_x);
    RUNNER_CUDA_CHECK_LAUNCH();
  }

  nlohmann::json extra_fields() const override {
    nlohmann::json fields = CudaTranspose<T>::extra_fields();
    fields["path"] = kernel_ == &tiled_vec_kernel<T> ? "aligned" : "segments";
    return fields;
  }

 private:
  using Kernel = void (*)(const T*, T*, std::int64_t, std::int64_t, unsigned);
  // Input rows (n) on 16-byte boundaries and output rows (m) on 32-byte sector boundaries:
  // aligned; anything else: segments.
  static Kernel kernel_for(const Point& point) {
    const ProblemSize& s = *point.size;
    return s.n % G::kV == 0 && s.m % SegmentTile<T, kSegmentAlign>::kA == 0
               ? &tiled_vec_kernel<T>
               : &tiled_vec_segments_kernel<T, kSegmentAlign>;
  }

  // Output columns beyond m the segments path's tiles must reach: a segment of output row J starts
  // up to kA − 1 columns before its tile, so the last tile row ends that much early.
  std::int64_t segment_reach() const {
    if (kernel_ == &tiled_vec_kernel<T>) return 0;
    return SegmentTile<T, kSegmentAlign>::kA - 1;
  }

  Kernel kernel_;
  TileGrid grid_;
};

}  // namespace

RUNNER_FACTORY(tiled_vec, by_dtype<TiledVec>);

}  // namespace runner::kernels::transpose
