// conv2d omp_serial: seed 001's base code, corrected, on one thread: one output at a time, every
// filter tap tested against the image border in the innermost loop. The speedup baseline.
#include <cstdint>

#include "kernels/conv2d/conv2d_cpu_workload.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::conv2d {

namespace {

// The seed's loop nest with its index bugs fixed (the column index now advances with the filter
// column, the store sits inside the column loop) and its `omp parallel for` dropped.
template <typename T>
class OmpSerial final : public CpuConv2d<T> {
 public:
  using CpuConv2d<T>::CpuConv2d;
  void run() override {
    const auto& p = this->p_;
    const std::int64_t m = p.m, n = p.n;
    const int ks = p.ks, r = ks / 2;
    const T* in = p.input.data();
    const T* w = p.weights.data();
    T* out = this->out_.data();
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        T conv = 0;
        std::int64_t x = i - r;
        for (int a = 0; a < ks; ++a, ++x) {
          std::int64_t y = j - r;
          for (int b = 0; b < ks; ++b, ++y)
            if (x >= 0 && x < m && y >= 0 && y < n) conv += in[x * n + y] * w[a * ks + b];
        }
        out[i * n + j] = conv;
      }
    }
  }
};

}  // namespace

RUNNER_FACTORY(omp_serial, make_workload<OmpSerial<float>>);

}  // namespace runner::kernels::conv2d
