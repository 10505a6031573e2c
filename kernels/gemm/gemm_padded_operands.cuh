#pragma once
// Operands copied to rows of whole 32-byte sectors, for a GEMM whose rows do not start on them.
//
// `regtile` loads A and B with 16-byte vectors, which needs every row of A (k floats) and of B
// (n floats) to start on a 16-byte boundary: k and n multiples of 4; `dmma` likewise with k and n
// even (its 8-byte-copy instance, 20–30 % slower, ran elsewhere). Anywhere else (1023³,
// 2047 × 2049 × 2051, 4095 × 4097 × 4099) the kernel had to load floats one by one, and that
// instance ran at 70–86 % of the vector one's rate (docs/performance.md, "Log"). Copying the
// misaligned operand into a buffer whose rows are padded to a multiple of 4 floats costs one pass
// over it (2 × 4 MB at 1023³, a few µs; 2.7 % of the GEMM at 4095 × 4097 × 4099) and lets the
// vector instance run. The copy is part of the variant's run, so it is timed with it.
//
// The copies' rows are whole 32-byte sectors (the unit in which L2 and DRAM serve a load), not
// only whole vectors: rows of 1002 doubles (8016 bytes) take 16-byte loads, but every other one
// starts in the middle of a sector, so a k-step's 128-byte segment of such a row touches 5 sectors,
// not 4. dmma's GEMM kernel took 51.5 µs at 1000 × 1001 × 1002 on A as it is (rows of 1002) against
// 42.3 at 1000³ (docs/performance.md, Log). Where rows take 16-byte loads but are not whole
// sectors, the variants time the vector instance on the operands as they are beside the copies.
//
// The padding columns are written as zeros on every copy: A's padding columns meet B rows past k,
// which the kernel zero-fills, and B's padding columns only reach C columns past n, which it drops,
// so neither affects C; zeros keep even those products finite.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include "kernels/common/vector16.cuh"
#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/cuda/device_buffer.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/pinned_choice.hpp"

namespace runner::kernels::gemm::padded {

// Row length rounded up to whole 16-byte vectors of T.
template <typename T>
constexpr std::int64_t padded_row(std::int64_t cols) {
  constexpr std::int64_t kLanes = 16 / sizeof(T);
  return (cols + kLanes - 1) / kLanes * kLanes;
}

// Row length rounded up to whole 32-byte sectors of T: the padded copies' rows.
template <typename T>
constexpr std::int64_t sector_row(std::int64_t cols) {
  constexpr std::int64_t kPerSector = 32 / sizeof(T);
  return (cols + kPerSector - 1) / kPerSector * kPerSector;
}

// One operand's copy: dst (rows × ld, ld a whole number of 32-byte sectors) = src (rows × cols),
// zeros in columns cols .. ld − 1. rows = 0: nothing to copy.
template <typename T>
struct PadJob {
  const T* src = nullptr;
  T* dst = nullptr;
  std::int64_t rows = 0, cols = 0, ld = 16 / sizeof(T);
};

// Both operands' copies in one launch (at 1023³ each is a few µs, launch latency included). A
// thread writes aligned 16-byte vectors and reads their elements: a warp reads 512 consecutive
// bytes of a row (coalesced) whatever the row's alignment. Each thread takes two vectors a grid
// stride apart per iteration, both read before either is written, and the row of a vector is a
// division in `Index`: 32-bit where every index fits (copy_padded). With one vector an iteration
// and 64-bit division the double copy at 1023³ took 10.4–10.6 µs, now 9.2–9.5 (Nsight Compute,
// H200, 2 × 8.4 MB read from DRAM, 38 % of its peak); four vectors a thread in one wave of
// blocks took 9.8–10.0.
template <typename T, typename Index>
__global__ void pad_rows_kernel(PadJob<T> first, PadJob<T> second) {
  using V = typename Vector16<T>::type;
  constexpr int kLanes = sizeof(V) / sizeof(T);
  const Index first_row_vectors = static_cast<Index>(first.ld / kLanes);
  const Index second_row_vectors = static_cast<Index>(second.ld / kLanes);
  const Index first_vectors = static_cast<Index>(first.rows) * first_row_vectors;
  const Index vectors = first_vectors + static_cast<Index>(second.rows) * second_row_vectors;
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  // Vector v: its elements (zeros past the row's cols) and where it goes.
  const auto load = [&](Index v, T(&out)[kLanes]) -> V* {
    // (Field by field: selecting a whole PadJob would put the parameters on the stack.)
    const bool in_first = v < first_vectors;
    const Index local = in_first ? v : v - first_vectors;
    const Index row_vectors = in_first ? first_row_vectors : second_row_vectors;
    const Index row = local / row_vectors;
    const std::int64_t col = static_cast<std::int64_t>(local - row * row_vectors) * kLanes;
    const std::int64_t cols = in_first ? first.cols : second.cols;
    const T* s = (in_first ? first.src : second.src) + static_cast<std::int64_t>(row) * cols + col;
#pragma unroll
    for (int l = 0; l < kLanes; ++l) out[l] = col + l < cols ? s[l] : T{0};
    return reinterpret_cast<V*>(in_first ? first.dst : second.dst) + local;
  };
  for (Index v = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; v < vectors;
       v += 2 * stride) {
    T lo[kLanes], hi[kLanes];
    V* const lo_dst = load(v, lo);
    V* const hi_dst = v + stride < vectors ? load(v + stride, hi) : nullptr;
    *lo_dst = *reinterpret_cast<const V*>(lo);
    if (hi_dst) *hi_dst = *reinterpret_cast<const V*>(hi);
  }
}

// One operand (rows × cols, row-major) as the kernel should read it: the original where its rows
// are already whole sectors, else (where chosen) a padded copy refreshed by copy_padded().
template <typename T>
class PaddedOperand {
 public:
  PaddedOperand(const T* src, std::int64_t rows, std::int64_t cols)
      : src_(src), rows_(rows), cols_(cols), ld_(sector_row<T>(cols)) {}

  // Whether the rows as they are start on 16-byte boundaries (with an aligned base): the vector
  // instance may read the original.
  bool vector_rows() const { return cols_ == padded_row<T>(cols_); }
  // Whether the copy pads the rows (they are not whole sectors); then allocate() must succeed
  // before copy_padded() and data().
  bool needs_copy() const { return ld_ != cols_; }
  // Allocates the padded buffer; false when the device has no room for it.
  bool allocate() {
    if (!needs_copy()) return true;
    buffer_ = cuda::DeviceBuffer<T>::try_allocate(static_cast<std::size_t>(rows_ * ld_));
    return buffer_.has_value();
  }
  // Frees the padded buffer where the copy will not be used after all (the other operand's did
  // not fit); needs_copy() stays true, and data() must not be called.
  void release() { buffer_.reset(); }
  // The copy to make (none when the source is used as it is).
  PadJob<T> job() const {
    if (!needs_copy()) return PadJob<T>{};
    return PadJob<T>{src_, buffer_->data(), rows_, cols_, ld_};
  }
  const T* data() const { return needs_copy() ? buffer_->data() : src_; }
  std::int64_t ld() const { return needs_copy() ? ld_ : cols_; }

 private:
  const T* src_;
  std::int64_t rows_, cols_, ld_;
  std::optional<cuda::DeviceBuffer<T>> buffer_;
};

// Allocates the padded copies that a and b need, both or neither: true when every operand that
// needs a copy has one (then the vector instance may read data()), false when the device had no
// room for one of them (then neither keeps a buffer, and the kernel reads the sources as they
// are).
template <typename T>
bool allocate_copies(PaddedOperand<T>& a, PaddedOperand<T>& b) {
  if (a.allocate() && b.allocate()) return true;
  a.release();  // A's copy may have fit where B's did not
  b.release();
  return false;
}

// Refreshes the padded copies of a and b from their sources, in one launch.
template <typename T>
void copy_padded(const PaddedOperand<T>& a, const PaddedOperand<T>& b, int sm_count,
                 cudaStream_t stream) {
  const PadJob<T> first = a.job(), second = b.job();
  constexpr std::int64_t kLanes = 16 / sizeof(T);
  const std::int64_t vectors =
      first.rows * (first.ld / kLanes) + second.rows * (second.ld / kLanes);
  if (vectors == 0) return;
  constexpr int kThreads = 256;
  const std::int64_t blocks =
      std::min<std::int64_t>((vectors + kThreads - 1) / kThreads, std::int64_t{sm_count} * 16);
  // 32-bit indices where every one the kernel forms fits (v + 2 strides, past the last vector).
  if (vectors + 2 * blocks * kThreads <= std::int64_t{std::numeric_limits<std::uint32_t>::max()})
    pad_rows_kernel<T, std::uint32_t>
        <<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(first, second);
  else
    pad_rows_kernel<T, std::int64_t>
        <<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(first, second);
  RUNNER_CUDA_CHECK_LAUNCH();
}

// For the record's `path`: ", A and B copied to 32-byte rows" (", A ...", ", B ..."), or "" where
// neither operand is read from a copy.
template <typename T>
std::string describe_copies(const PaddedOperand<T>& a, const PaddedOperand<T>& b, bool copies) {
  if (!copies || (!a.needs_copy() && !b.needs_copy())) return "";
  const char* which = a.needs_copy() && b.needs_copy() ? "A and B" : a.needs_copy() ? "A" : "B";
  return std::string(", ") + which + " copied to 32-byte rows";
}

// How a GEMM whose A or B rows are not whole sectors loads them: its vector instance on the padded
// copies, or on the operands as they are where their rows start on 16 bytes, else its narrower
// instance (4-byte loads in `regtile`, 8-byte copies in `dmma`) on them. Neither wins everywhere:
// the copy is a launch and a pass over A and B that a GEMM of a few µs does not repay, and that a
// large one does. So the variants time the copies beside the operands as they are at set-up
// (gemm_timed_routes.cuh); the variable `env` pins the instance, `vector` (on the copies where the
// rows as they are do not take it, timed against them where they do) or `scalar` (no copies: the
// narrower instance where the rows do not take 16-byte loads), for A/B studies and for runs that
// must launch the same code everywhere.
enum class Loads { vector, scalar };

inline std::optional<Loads> pinned_loads(const char* env) {
  const std::optional<std::size_t> pinned =
      pinned_choice(env, {"vector", "scalar"}, "the faster of the two, timed at set-up");
  if (!pinned) return std::nullopt;
  return *pinned == 0 ? Loads::vector : Loads::scalar;
}

}  // namespace runner::kernels::gemm::padded
