// gemm example_dot: C = A·B as one dot product per output (i-j-k loops), OpenMP over the rows.
// The example of README.md's "Adding a kernel variant", verbatim (a test keeps the two equal), in
// a test-only binary: the workload, its factory, and its registration line.
#include <cstdint>

#include "kernels/gemm/gemm_cpu_workload.hpp"
#include "runner/api/registry.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::gemm {

namespace {

template <typename T>
class ExampleDot final : public CpuGemm<T> {
 public:
  using CpuGemm<T>::CpuGemm;  // buffers, inputs, reference and verification come with the base
  void run() override {
    const T* a = this->p_.a.data();
    const T* b = this->p_.b.data();
    T* c = this->out_.data();
    const std::int64_t m = this->p_.m, n = this->p_.n, k = this->p_.k;
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        T sum = 0;
        for (std::int64_t q = 0; q < k; ++q) sum += a[i * k + q] * b[q * n + j];
        c[i * n + j] = sum;
      }
  }
};

}  // namespace

RUNNER_FACTORY(example_dot, by_dtype<ExampleDot>);

// The registration line. In kernels/gemm/ it goes into gemm_registration.cpp, after its siblings.
RUNNER_CPU_VARIANT(gemm, example_dot,
                   {.axes = {Axis::threads}, .description = "example: one dot product per output"});

}  // namespace runner::kernels::gemm
