// gemm omp_serial: i-k-j loops on one thread, the baseline of the seeds' speedup tables.
#include "kernels/gemm/gemm_cpu_workload.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::gemm {

namespace {

template <typename T>
class OmpSerial final : public CpuGemm<T> {
 public:
  using CpuGemm<T>::CpuGemm;
  void run() override {
    const auto& p = this->p_;
    for (std::int64_t i = 0; i < p.m; ++i)
      ikj_row(p.a.data(), p.b.data(), this->out_.data(), i, p.n, p.k);
  }
};

}  // namespace

RUNNER_FACTORY(omp_serial, by_dtype<OmpSerial>);

}  // namespace runner::kernels::gemm
