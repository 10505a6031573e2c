// transpose my_rows: an OpenMP CPU transpose as a plugin, parallel over blocks of 8 output rows so
// that a thread writes whole cache lines of the output while it reads down the input's columns.
// The runner gives it the problem, the poisoned output and the exact reference
// (docs/own-kernel.md).
#include <algorithm>
#include <cstdint>

#include "kernels/transpose/transpose_cpu_workload.hpp"
#include "runner/api/registry.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::transpose {

namespace {

template <typename T>
class MyRows final : public CpuTranspose<T> {
 public:
  using CpuTranspose<T>::CpuTranspose;  // buffers, inputs, reference and verification

  void run() override {
    const std::int64_t m = this->p_.m, n = this->p_.n;
    const T* in = this->p_.input.data();
    T* out = this->out_.data();
    constexpr std::int64_t kBand = 8;
#pragma omp parallel for schedule(static)
    for (std::int64_t j0 = 0; j0 < n; j0 += kBand)
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = j0; j < std::min(n, j0 + kBand); ++j) out[j * m + i] = in[i * n + j];
  }
};

}  // namespace

RUNNER_FACTORY(my_rows, by_dtype<MyRows>);
RUNNER_CPU_VARIANT(transpose, my_rows,
                   {.axes = {Axis::threads}, .description = "bands of 8 output rows, omp for"});

}  // namespace runner::kernels::transpose
