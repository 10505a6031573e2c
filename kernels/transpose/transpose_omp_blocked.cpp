// transpose omp_blocked: square cache tiles, parallel over tiles: a tile's input rows and output
// rows both stay in L1 while it is transposed, so each cache line fetched is used whole.
#include <algorithm>

#include "kernels/transpose/transpose_cpu_workload.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::transpose {

namespace {

template <typename T>
class OmpBlocked final : public CpuTranspose<T> {
 public:
  using CpuTranspose<T>::CpuTranspose;
  // 32×32 tiles: 4 KiB of float input and 4 KiB of output (8 + 8 KiB in double) fit in L1 with
  // room to spare, and 32 floats are two cache lines per tile row.
  static constexpr std::int64_t kTile = 32;

  void run() override {
    const auto& p = this->p_;
    const std::int64_t m = p.m, n = p.n;
    const T* in = p.input.data();
    T* out = this->out_.data();
    const std::int64_t tiles_i = (m + kTile - 1) / kTile, tiles_j = (n + kTile - 1) / kTile;
#pragma omp parallel for collapse(2) schedule(static)
    for (std::int64_t ti = 0; ti < tiles_i; ++ti) {
      for (std::int64_t tj = 0; tj < tiles_j; ++tj) {
        const std::int64_t i0 = ti * kTile, i1 = std::min(m, i0 + kTile);
        const std::int64_t j0 = tj * kTile, j1 = std::min(n, j0 + kTile);
        // Output rows in the outer loop: each output row of the tile is written contiguously
        // while the tile's input rows, already in L1, are read down a column.
        for (std::int64_t j = j0; j < j1; ++j)
          for (std::int64_t i = i0; i < i1; ++i) out[j * m + i] = in[i * n + j];
      }
    }
  }
};

}  // namespace

RUNNER_FACTORY(omp_blocked, by_dtype<OmpBlocked>);

}  // namespace runner::kernels::transpose
