#pragma once
// Operands copied to 16-byte rows, for a GEMM whose rows do not start on 16-byte boundaries.
//
// `regtile` loads A and B with 16-byte vectors, which needs every row of A (k floats) and of B
// (n floats) to start on a 16-byte boundary: k and n multiples of 4. Anywhere else (1023³,
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
#include <optional>

#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/cuda/device_buffer.hpp"

namespace runner::kernels::gemm::padded {

// Row length rounded up to whole 16-byte vectors of T.
template <typename T>
constexpr std::int64_t padded_row(std::int64_t cols) {
  constexpr std::int64_t kLanes = 16 / sizeof(T);
  return (cols + kLanes - 1) / kLanes * kLanes;
}

// One operand's copy: dst (rows × ld, ld a multiple of 4) = src (rows × cols), zeros in columns
// cols .. ld − 1. rows = 0: nothing to copy.
struct PadJob {
  const float* src = nullptr;
  float* dst = nullptr;
  std::int64_t rows = 0, cols = 0, ld = 4;
};

// Both operands' copies in one launch (at 1023³ each is a few µs, launch latency included). A
// thread writes one aligned float4 and reads its four floats: a warp reads 128 consecutive floats
// of a row (coalesced) whatever the row's alignment.
__global__ void pad_rows_kernel(PadJob first, PadJob second) {
  const std::int64_t first_vectors = first.rows * (first.ld / 4);
  const std::int64_t vectors = first_vectors + second.rows * (second.ld / 4);
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t v = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; v < vectors;
       v += stride) {
    // (Field by field: selecting a whole PadJob would put the parameters on the stack.)
    const bool in_first = v < first_vectors;
    const std::int64_t local = in_first ? v : v - first_vectors;
    const std::int64_t cols = in_first ? first.cols : second.cols;
    const std::int64_t row_vectors = (in_first ? first.ld : second.ld) / 4;
    const std::int64_t row = local / row_vectors, col = (local - row * row_vectors) * 4;
    const float* s = (in_first ? first.src : second.src) + row * cols + col;
    float4 out;
    out.x = col + 0 < cols ? s[0] : 0.f;
    out.y = col + 1 < cols ? s[1] : 0.f;
    out.z = col + 2 < cols ? s[2] : 0.f;
    out.w = col + 3 < cols ? s[3] : 0.f;
    reinterpret_cast<float4*>(in_first ? first.dst : second.dst)[local] = out;
  }
}

// One operand (rows × cols, row-major) as the kernel should read it: the original where its rows
// are already whole vectors, else a padded copy refreshed by copy_padded().
class PaddedOperand {
 public:
  PaddedOperand(const float* src, std::int64_t rows, std::int64_t cols)
      : src_(src), rows_(rows), cols_(cols), ld_(padded_row<float>(cols)) {}

  // Whether the rows need a copy; then allocate() must succeed before copy_padded() and data().
  bool needs_copy() const { return ld_ != cols_; }
  // Allocates the padded buffer; false when the device has no room for it.
  bool allocate() {
    if (!needs_copy()) return true;
    buffer_ = cuda::DeviceBuffer<float>::try_allocate(static_cast<std::size_t>(rows_ * ld_));
    return buffer_.has_value();
  }
  // Frees the padded buffer where the copy will not be used after all (the other operand's did
  // not fit); needs_copy() stays true, and data() must not be called.
  void release() { buffer_.reset(); }
  // The copy to make (none when the source is used as it is).
  PadJob job() const {
    if (!needs_copy()) return PadJob{};
    return PadJob{src_, buffer_->data(), rows_, cols_, ld_};
  }
  const float* data() const { return needs_copy() ? buffer_->data() : src_; }
  std::int64_t ld() const { return needs_copy() ? ld_ : cols_; }

 private:
  const float* src_;
  std::int64_t rows_, cols_, ld_;
  std::optional<cuda::DeviceBuffer<float>> buffer_;
};

// Refreshes the padded copies of a and b from their sources, in one launch.
inline void copy_padded(const PaddedOperand& a, const PaddedOperand& b, int sm_count,
                        cudaStream_t stream) {
  const PadJob first = a.job(), second = b.job();
  const std::int64_t vectors = first.rows * (first.ld / 4) + second.rows * (second.ld / 4);
  if (vectors == 0) return;
  constexpr int kThreads = 256;
  const std::int64_t blocks =
      std::min<std::int64_t>((vectors + kThreads - 1) / kThreads, std::int64_t{sm_count} * 16);
  pad_rows_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(first, second);
  RUNNER_CUDA_CHECK_LAUNCH();
}

}  // namespace runner::kernels::gemm::padded
