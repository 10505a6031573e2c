// CPU transpose variants. All write out (n×m) = in (m×n)ᵀ, row-major.
//   omp_serial   row by row on one thread: reads are sequential, writes stride by m elements.
//                The baseline of the seeds' speedup tables.
//   omp_naive    the same loop with `omp parallel for` over input rows
//   omp_blocked  square cache tiles, parallel over tiles: a tile's input rows and output rows
//                both stay in L1 while it is transposed, so each cache line fetched is used whole
#include "kernels/transpose/transpose_cpu.hpp"

#include <algorithm>
#include <cstdint>

#include "kernels/common/cpu_workload.hpp"
#include "kernels/transpose/transpose_problem.hpp"
#include "runner/api/verification.hpp"

namespace runner::kernels::transpose {

namespace {

template <typename T>
class CpuTranspose : public ArrayOutputWorkload<T> {
 public:
  CpuTranspose(const Point& point, std::shared_ptr<const Problem> problem)
      : ArrayOutputWorkload<T>(static_cast<std::size_t>(point.size->m * point.size->n),
                               static_cast<const TransposeProblem<T>&>(*problem).reference,
                               tolerance_for(*point.dtype, Precision::native, 0)),
        problem_(std::move(problem)),
        p_(static_cast<const TransposeProblem<T>&>(*problem_)) {}

 protected:
  std::shared_ptr<const Problem> problem_;  // keeps the input and the reference alive
  const TransposeProblem<T>& p_;
};

// Input row i becomes output column i.
template <typename T>
void transpose_row(const T* in, T* out, std::int64_t i, std::int64_t m, std::int64_t n) {
  const T* row = in + i * n;
  for (std::int64_t j = 0; j < n; ++j) out[j * m + i] = row[j];
}

template <typename T>
class OmpSerial final : public CpuTranspose<T> {
 public:
  using CpuTranspose<T>::CpuTranspose;
  void run() override {
    const auto& p = this->p_;
    for (std::int64_t i = 0; i < p.m; ++i)
      transpose_row(p.input.data(), this->out_.data(), i, p.m, p.n);
  }
};

template <typename T>
class OmpNaive final : public CpuTranspose<T> {
 public:
  using CpuTranspose<T>::CpuTranspose;
  void run() override {
    const auto& p = this->p_;
    T* out = this->out_.data();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < p.m; ++i) transpose_row(p.input.data(), out, i, p.m, p.n);
  }
};

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

template <template <typename> class W>
std::unique_ptr<Workload> make(const Point& point, std::shared_ptr<const Problem> problem) {
  if (point.dtype == Dtype::f64) return std::make_unique<W<double>>(point, std::move(problem));
  return std::make_unique<W<float>>(point, std::move(problem));
}

}  // namespace

std::unique_ptr<Workload> make_omp_serial(const Point& pt, std::shared_ptr<const Problem> pr) {
  return make<OmpSerial>(pt, std::move(pr));
}
std::unique_ptr<Workload> make_omp_naive(const Point& pt, std::shared_ptr<const Problem> pr) {
  return make<OmpNaive>(pt, std::move(pr));
}
std::unique_ptr<Workload> make_omp_blocked(const Point& pt, std::shared_ptr<const Problem> pr) {
  return make<OmpBlocked>(pt, std::move(pr));
}

}  // namespace runner::kernels::transpose
