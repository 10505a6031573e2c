// gemm omp_blocked: cache tiles of A, B and C, with the 1×4 register blocking of the seed reports
// (four outputs of a row held in registers while each A[i][p] is used four times). Kept as the
// seeds wrote it: slower than omp_naive on most machines, which is the lesson.
#include <algorithm>

#include "kernels/gemm/gemm_cpu_workload.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::gemm {

namespace {

template <typename T>
class OmpBlocked final : public CpuGemm<T> {
 public:
  using CpuGemm<T>::CpuGemm;
  // Tiles: a 64×256 block of B (64 KiB in float) stays in L2 while a thread sweeps 32 rows of A.
  static constexpr std::int64_t kTileI = 32, kTileJ = 256, kTileK = 64;

  void run() override {
    const auto& p = this->p_;
    const std::int64_t m = p.m, n = p.n, k = p.k;
    const T* a = p.a.data();
    const T* b = p.b.data();
    T* c = this->out_.data();
    const std::int64_t tiles_i = (m + kTileI - 1) / kTileI, tiles_j = (n + kTileJ - 1) / kTileJ;
#pragma omp parallel for collapse(2) schedule(static)
    for (std::int64_t ti = 0; ti < tiles_i; ++ti) {
      for (std::int64_t tj = 0; tj < tiles_j; ++tj) {
        const std::int64_t i0 = ti * kTileI, i1 = std::min(m, i0 + kTileI);
        const std::int64_t j0 = tj * kTileJ, j1 = std::min(n, j0 + kTileJ);
        for (std::int64_t i = i0; i < i1; ++i)
          for (std::int64_t j = j0; j < j1; ++j) c[i * n + j] = T(0);
        for (std::int64_t p0 = 0; p0 < k; p0 += kTileK) {
          const std::int64_t p1 = std::min(k, p0 + kTileK);
          for (std::int64_t i = i0; i < i1; ++i) {
            std::int64_t j = j0;
            for (; j + 4 <= j1; j += 4) {  // 1×4 register block
              T s0 = c[i * n + j], s1 = c[i * n + j + 1], s2 = c[i * n + j + 2],
                s3 = c[i * n + j + 3];
              for (std::int64_t q = p0; q < p1; ++q) {
                const T aiq = a[i * k + q];
                const T* brow = b + q * n + j;
                s0 += aiq * brow[0];
                s1 += aiq * brow[1];
                s2 += aiq * brow[2];
                s3 += aiq * brow[3];
              }
              c[i * n + j] = s0;
              c[i * n + j + 1] = s1;
              c[i * n + j + 2] = s2;
              c[i * n + j + 3] = s3;
            }
            for (; j < j1; ++j) {  // columns left over when the tile is not a multiple of 4
              T s = c[i * n + j];
              for (std::int64_t q = p0; q < p1; ++q) s += a[i * k + q] * b[q * n + j];
              c[i * n + j] = s;
            }
          }
        }
      }
    }
  }
};

}  // namespace

RUNNER_FACTORY(omp_blocked, by_dtype<OmpBlocked>);

}  // namespace runner::kernels::gemm
