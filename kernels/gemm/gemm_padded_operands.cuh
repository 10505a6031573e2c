#pragma once
// Operands copied to 16-byte rows, for a GEMM whose rows do not start on 16-byte boundaries.
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
// The padding columns are written as zeros on every copy: A's padding columns meet B rows past k,
// which the kernel zero-fills, and B's padding columns only reach C columns past n, which it drops,
// so neither affects C; zeros keep even those products finite.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
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

// One operand's copy: dst (rows × ld, ld a whole number of 16-byte vectors) = src (rows × cols),
// zeros in columns cols .. ld − 1. rows = 0: nothing to copy.
template <typename T>
struct PadJob {
  const T* src = nullptr;
  T* dst = nullptr;
  std::int64_t rows = 0, cols = 0, ld = 16 / sizeof(T);
};

// Both operands' copies in one launch (at 1023³ each is a few µs, launch latency included). A
// thread writes one aligned 16-byte vector and reads its elements: a warp reads 512 consecutive
// bytes of a row (coalesced) whatever the row's alignment.
template <typename T>
__global__ void pad_rows_kernel(PadJob<T> first, PadJob<T> second) {
  using V = typename Vector16<T>::type;
  constexpr int kLanes = sizeof(V) / sizeof(T);
  const std::int64_t first_vectors = first.rows * (first.ld / kLanes);
  const std::int64_t vectors = first_vectors + second.rows * (second.ld / kLanes);
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t v = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; v < vectors;
       v += stride) {
    // (Field by field: selecting a whole PadJob would put the parameters on the stack.)
    const bool in_first = v < first_vectors;
    const std::int64_t local = in_first ? v : v - first_vectors;
    const std::int64_t cols = in_first ? first.cols : second.cols;
    const std::int64_t row_vectors = (in_first ? first.ld : second.ld) / kLanes;
    const std::int64_t row = local / row_vectors, col = (local - row * row_vectors) * kLanes;
    const T* s = (in_first ? first.src : second.src) + row * cols + col;
    T out[kLanes];
#pragma unroll
    for (int l = 0; l < kLanes; ++l) out[l] = col + l < cols ? s[l] : T{0};
    reinterpret_cast<V*>(in_first ? first.dst : second.dst)[local] =
        *reinterpret_cast<const V*>(out);
  }
}

// One operand (rows × cols, row-major) as the kernel should read it: the original where its rows
// are already whole vectors, else a padded copy refreshed by copy_padded().
template <typename T>
class PaddedOperand {
 public:
  PaddedOperand(const T* src, std::int64_t rows, std::int64_t cols)
      : src_(src), rows_(rows), cols_(cols), ld_(padded_row<T>(cols)) {}

  // Whether the rows need a copy; then allocate() must succeed before copy_padded() and data().
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
  pad_rows_kernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(first, second);
  RUNNER_CUDA_CHECK_LAUNCH();
}

// For the record's `path`: ", A and B copied to 16-byte rows" (", A ...", ", B ..."), or "" where
// neither operand is read from a copy.
template <typename T>
std::string describe_copies(const PaddedOperand<T>& a, const PaddedOperand<T>& b, bool copies) {
  if (!copies || (!a.needs_copy() && !b.needs_copy())) return "";
  const char* which = a.needs_copy() && b.needs_copy() ? "A and B" : a.needs_copy() ? "A" : "B";
  return std::string(", ") + which + " copied to 16-byte rows";
}

// How a GEMM whose A or B rows do not start on 16-byte boundaries loads them: its vector instance
// on the padded copies, or its narrower instance (4-byte loads in `regtile`, 8-byte copies in
// `dmma`) on the operands as they are. Neither wins everywhere: the copy is a launch and a pass
// over A and B that a GEMM of a few µs does not repay, and that a large one does. So the variants
// time both at set-up (gemm_timed_routes.cuh); the variable `env` pins one, `vector` or `scalar`,
// for A/B studies and for runs that must launch the same code everywhere.
enum class Loads { vector, scalar };

inline std::optional<Loads> pinned_loads(const char* env) {
  const std::optional<std::size_t> pinned =
      pinned_choice(env, {"vector", "scalar"}, "the faster of the two, timed at set-up");
  if (!pinned) return std::nullopt;
  return *pinned == 0 ? Loads::vector : Loads::scalar;
}

}  // namespace runner::kernels::gemm::padded
