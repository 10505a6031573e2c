// transpose omp_naive: the row-by-row loop of omp_serial with `omp parallel for` over input rows.
#include "kernels/transpose/transpose_cpu_workload.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::transpose {

namespace {

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

}  // namespace

RUNNER_FACTORY(omp_naive, by_dtype<OmpNaive>);

}  // namespace runner::kernels::transpose
