// transpose omp_serial: row by row on one thread (reads sequential, writes m elements apart), the
// baseline of the seeds' speedup tables.
#include "kernels/transpose/transpose_cpu_workload.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::transpose {

namespace {

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

}  // namespace

RUNNER_FACTORY(omp_serial, by_dtype<OmpSerial>);

}  // namespace runner::kernels::transpose
