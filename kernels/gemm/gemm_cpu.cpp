// CPU GEMM variants. All compute C = A·B for row-major A (m×k), B (k×n), C (m×n).
//   omp_serial   i-k-j loop on one thread: the baseline of the seeds' speedup tables
//   omp_naive    the same loop with `omp parallel for` over rows of C
//   omp_blocked  cache tiles of A, B and C, with the 1×4 register blocking of the seed reports:
//                four outputs of a row held in registers while a reuses A[i][p] four times
//   openblas     cblas_sgemm / cblas_dgemm with the point's thread count: the CPU reference
#include "kernels/gemm/gemm_cpu.hpp"

#include <cblas.h>
#include <omp.h>

#include <algorithm>

#include "kernels/common/cpu_workload.hpp"
#include "kernels/gemm/gemm_problem.hpp"
#include "runner/api/openblas_pool.hpp"
#include "runner/api/verification.hpp"

extern "C" void openblas_set_num_threads(int num_threads);

namespace runner::kernels::gemm {

namespace {

template <typename T>
class CpuGemm : public ArrayOutputWorkload<T> {
 public:
  CpuGemm(const Point& point, std::shared_ptr<const Problem> problem)
      : ArrayOutputWorkload<T>(static_cast<std::size_t>(point.size->m * point.size->n),
                               static_cast<const GemmProblem<T>&>(*problem).reference,
                               tolerance_for(*point.dtype, Precision::native, point.size->k)),
        problem_(std::move(problem)),
        p_(static_cast<const GemmProblem<T>&>(*problem_)) {}

 protected:
  std::shared_ptr<const Problem> problem_;  // keeps the inputs alive
  const GemmProblem<T>& p_;
};

template <typename T>
void ikj_rows(const T* a, const T* b, T* c, std::int64_t i, std::int64_t n, std::int64_t k) {
  T* crow = c + i * n;
  for (std::int64_t j = 0; j < n; ++j) crow[j] = T(0);
  for (std::int64_t p = 0; p < k; ++p) {
    const T aip = a[i * k + p];
    const T* brow = b + p * n;
    for (std::int64_t j = 0; j < n; ++j) crow[j] += aip * brow[j];
  }
}

template <typename T>
class OmpSerial final : public CpuGemm<T> {
 public:
  using CpuGemm<T>::CpuGemm;
  void run() override {
    const auto& p = this->p_;
    for (std::int64_t i = 0; i < p.m; ++i) ikj_rows(p.a.data(), p.b.data(), this->out_.data(), i, p.n, p.k);
  }
};

template <typename T>
class OmpNaive final : public CpuGemm<T> {
 public:
  using CpuGemm<T>::CpuGemm;
  void run() override {
    const auto& p = this->p_;
    T* c = this->out_.data();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < p.m; ++i) ikj_rows(p.a.data(), p.b.data(), c, i, p.n, p.k);
  }
};

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
              T s0 = c[i * n + j], s1 = c[i * n + j + 1], s2 = c[i * n + j + 2], s3 = c[i * n + j + 3];
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

template <typename T>
class OpenBlas final : public CpuGemm<T> {
 public:
  OpenBlas(const Point& point, std::shared_ptr<const Problem> problem)
      : CpuGemm<T>(point, std::move(problem)), threads_(point.threads.value_or(1)) {
    start_openblas_pool_unpinned();
    require_openblas_threads(threads_);
  }
  void run() override {
    openblas_set_num_threads(threads_);
    const auto& p = this->p_;
    const auto m = static_cast<blasint>(p.m), n = static_cast<blasint>(p.n), k = static_cast<blasint>(p.k);
    if constexpr (std::is_same_v<T, float>)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, p.a.data(), k, p.b.data(), n, 0.0f,
                  this->out_.data(), n);
    else
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, p.a.data(), k, p.b.data(), n, 0.0,
                  this->out_.data(), n);
  }

 private:
  int threads_;
};

template <template <typename> class W>
std::unique_ptr<Workload> make(const Point& point, std::shared_ptr<const Problem> problem) {
  if (point.dtype == Dtype::f64) return std::make_unique<W<double>>(point, std::move(problem));
  return std::make_unique<W<float>>(point, std::move(problem));
}

}  // namespace

std::unique_ptr<Workload> make_omp_serial(const Point& pt, std::shared_ptr<const Problem> pr) { return make<OmpSerial>(pt, std::move(pr)); }
std::unique_ptr<Workload> make_omp_naive(const Point& pt, std::shared_ptr<const Problem> pr) { return make<OmpNaive>(pt, std::move(pr)); }
std::unique_ptr<Workload> make_omp_blocked(const Point& pt, std::shared_ptr<const Problem> pr) { return make<OmpBlocked>(pt, std::move(pr)); }
std::unique_ptr<Workload> make_openblas(const Point& pt, std::shared_ptr<const Problem> pr) { return make<OpenBlas>(pt, std::move(pr)); }

}  // namespace runner::kernels::gemm
