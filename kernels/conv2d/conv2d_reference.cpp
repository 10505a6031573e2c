#include <algorithm>

#include "kernels/common/host_parallel.hpp"
#include "kernels/common/random_fill.hpp"
#include "kernels/conv2d/conv2d_problem.hpp"
#include "runner/api/dtype.hpp"
#include "runner/api/errors.hpp"

namespace runner::kernels::conv2d {

namespace {

// The reference sums in double, one output row at a time: for each filter tap (a, b) that lands
// inside the image, the whole row gets w[a][b] times the input row shifted by b − r. The column
// range of each shift is clipped instead of testing every term, so the inner loop is a plain
// vectorisable axpy and 8192² × 15² taps take well under a second on a few cores.
template <typename T>
void compute_reference(Conv2dHostData<T>& p) {
  const std::int64_t m = p.m, n = p.n;
  const int ks = p.ks, r = ks / 2;
  const T* in = p.input.data();
  const T* w = p.weights.data();
  p.reference.resize(static_cast<std::size_t>(m * n));
  double* ref = p.reference.data();
#pragma omp parallel if (m * n >= kHostParallelFrom)
  {
    std::vector<double> in_row(static_cast<std::size_t>(n));
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < m; ++i) {
      double* out = ref + i * n;
      std::fill(out, out + n, 0.0);
      for (int a = 0; a < ks; ++a) {
        const std::int64_t x = i + a - r;
        if (x < 0 || x >= m) continue;  // zero padding: the whole filter row adds nothing
        std::copy(in + x * n, in + (x + 1) * n, in_row.begin());
        for (int b = 0; b < ks; ++b) {
          const double wab = static_cast<double>(w[a * ks + b]);
          const std::int64_t shift = b - r;
          const std::int64_t lo = std::max<std::int64_t>(0, -shift);
          const std::int64_t hi = std::min<std::int64_t>(n, n - shift);
          const double* row = in_row.data();
          for (std::int64_t j = lo; j < hi; ++j) out[j] += wab * row[j + shift];
        }
      }
    }
  }
}

template <typename T>
std::shared_ptr<const Problem> build(const Point& point, std::uint64_t seed) {
  auto p = std::make_shared<Conv2dProblem<T>>();
  p->m = point.size->m;
  p->n = point.size->n;
  p->ks = point.kernel_size.value_or(3);
  p->seed = seed;
  if (p->ks < 1 || p->ks > kMaxKernelSize || p->ks % 2 == 0)
    throw PointInvalid("conv2d needs an odd kernel_size in 1.." + std::to_string(kMaxKernelSize) +
                       ", got " + std::to_string(p->ks));
  p->weights = HostArray<T>(static_cast<std::size_t>(p->ks * p->ks));
  fill_uniform<T>(p->weights.span(), seed, 1);
  return p;
}

}  // namespace

template <typename T>
const Conv2dHostData<T>& Conv2dProblem<T>::host() const {
  return host_.get([this] {
    Conv2dHostData<T> h;
    h.m = m;
    h.n = n;
    h.ks = ks;
    h.input = HostArray<T>(static_cast<std::size_t>(m * n));
    fill_uniform<T>(h.input.span(), seed, 0);
    h.weights = HostArray<T>(weights.size());
    std::copy(weights.data(), weights.data() + weights.size(), h.weights.data());
    compute_reference(h);
    return h;
  });
}

template struct Conv2dProblem<float>;

std::shared_ptr<const Problem> make_problem(const Point& point, std::uint64_t seed) {
  return build<float>(point, seed);  // float is the only dtype conv2d registers
}

double flops(const Point& point) {
  const double ks = point.kernel_size.value_or(3);
  return 2.0 * static_cast<double>(point.size->m) * static_cast<double>(point.size->n) * ks * ks;
}

double bytes(const Point& point) {
  const double image = static_cast<double>(point.size->m) * static_cast<double>(point.size->n);
  const double ks = point.kernel_size.value_or(3);
  return (image + ks * ks + image) *
         static_cast<double>(dtype_bytes(point.dtype.value_or(Dtype::f32)));
}

std::int64_t reduction_length(const Point& point) {
  const std::int64_t ks = point.kernel_size.value_or(3);
  // A 1×1 filter still multiplies, and its float product is rounded: not the exact copy that a
  // reduction length of 1 stands for (tolerance 0), so it counts as the shortest real sum.
  return std::max<std::int64_t>(ks * ks, 2);
}

}  // namespace runner::kernels::conv2d
