// gemm openblas: cblas_sgemm / cblas_dgemm with the point's thread count, the CPU reference.
#include <cblas.h>

#include <type_traits>

#include "kernels/gemm/gemm_cpu_workload.hpp"
#include "runner/api/openblas_pool.hpp"
#include "runner/api/variant.hpp"

extern "C" void openblas_set_num_threads(int num_threads);

namespace runner::kernels::gemm {

namespace {

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
    const auto m = static_cast<blasint>(p.m), n = static_cast<blasint>(p.n),
               k = static_cast<blasint>(p.k);
    if constexpr (std::is_same_v<T, float>)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, p.a.data(), k,
                  p.b.data(), n, 0.0f, this->out_.data(), n);
    else
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, p.a.data(), k,
                  p.b.data(), n, 0.0, this->out_.data(), n);
  }

 private:
  int threads_;
};

}  // namespace

RUNNER_FACTORY(openblas, by_dtype<OpenBlas>);

}  // namespace runner::kernels::gemm
