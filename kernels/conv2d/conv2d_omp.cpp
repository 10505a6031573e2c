// conv2d omp: `omp parallel for` over output rows; the border test is hoisted out of the inner
// loop by clipping loop ranges, and the inner loop runs along a row so it vectorises.
#include <algorithm>
#include <array>
#include <cstdint>

#include "kernels/conv2d/conv2d_cpu_workload.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::conv2d {

namespace {

// Rows in parallel. Within a row, a strip of kStrip outputs accumulates in a small array that
// stays in L1: for each filter tap (a, b), the strip gets w[a][b] times the input row i + a − r
// shifted by b − r. Taps whose input row is outside the image are skipped as a whole, and the
// column range of each shift is clipped to the image, so no test is left in the inner loop, which
// is a unit-stride multiply-add the compiler vectorises. Each output still sums its taps in the
// order (a, b) of omp_serial.
template <typename T>
class Omp final : public CpuConv2d<T> {
 public:
  using CpuConv2d<T>::CpuConv2d;
  // 512 floats: the strip (2 KiB) and the ks input rows it reads stay in L1 and L2 at any n.
  static constexpr std::int64_t kStrip = 512;

  void run() override {
    const auto& p = this->p_;
    const std::int64_t m = p.m, n = p.n;
    const int ks = p.ks, r = ks / 2;
    const T* in = p.input.data();
    const T* w = p.weights.data();
    T* out = this->out_.data();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < m; ++i) {
      // Filter rows whose input row lies inside the image.
      const int a0 = static_cast<int>(std::max<std::int64_t>(0, r - i));
      const int a1 = static_cast<int>(std::min<std::int64_t>(ks, m - i + r));
      std::array<T, kStrip> acc;
      for (std::int64_t j0 = 0; j0 < n; j0 += kStrip) {
        const std::int64_t j1 = std::min(n, j0 + kStrip);
        std::fill(acc.begin(), acc.begin() + (j1 - j0), T(0));
        T* strip = acc.data();  // strip[j - j0] is the output of column j
        for (int a = a0; a < a1; ++a) {
          const T* row = in + (i + a - r) * n;
          for (int b = 0; b < ks; ++b) {
            const T wab = w[a * ks + b];
            const std::int64_t shift = b - r;
            const std::int64_t lo = std::max(j0, -shift), hi = std::min(j1, n - shift);
#pragma omp simd
            for (std::int64_t j = lo; j < hi; ++j) strip[j - j0] += wab * row[j + shift];
          }
        }
        std::copy(acc.begin(), acc.begin() + (j1 - j0), out + i * n + j0);
      }
    }
  }
};

}  // namespace

RUNNER_FACTORY(omp, make_workload<Omp<float>>);

}  // namespace runner::kernels::conv2d
