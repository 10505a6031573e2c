// gemm omp_naive: the i-k-j loops of omp_serial with `omp parallel for` over the rows of C.
#include "kernels/gemm/gemm_cpu_workload.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::gemm {

namespace {

template <typename T>
class OmpNaive final : public CpuGemm<T> {
 public:
  using CpuGemm<T>::CpuGemm;
  void run() override {
    const auto& p = this->p_;
    T* c = this->out_.data();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < p.m; ++i) ikj_row(p.a.data(), p.b.data(), c, i, p.n, p.k);
  }
};

}  // namespace

RUNNER_FACTORY(omp_naive, by_dtype<OmpNaive>);

}  // namespace runner::kernels::gemm
