#include <cblas.h>

#include "kernels/common/random_fill.hpp"
#include "kernels/gemm/gemm_problem.hpp"
#include "runner/api/dtype.hpp"
#include "runner/api/openblas_pool.hpp"

namespace runner::kernels::gemm {

template <typename T>
const GemmHostData<T>& GemmProblem<T>::host() const {
  return host_.get([this] {
    GemmHostData<T> h;
    h.m = m;
    h.n = n;
    h.k = k;
    h.a = HostArray<T>(static_cast<std::size_t>(m * k));
    h.b = HostArray<T>(static_cast<std::size_t>(k * n));
    fill_uniform<T>(h.a.span(), seed, 0);
    fill_uniform<T>(h.b.span(), seed, 1);
    start_openblas_pool_unpinned();  // before this process's first BLAS call
    // The reference multiplies exactly the values the variants see, widened to double.
    std::vector<double> a(h.a.data(), h.a.data() + h.a.size()),
        b(h.b.data(), h.b.data() + h.b.size());
    h.reference.assign(static_cast<std::size_t>(m * n), 0.0);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(m),
                static_cast<blasint>(n), static_cast<blasint>(k), 1.0, a.data(),
                static_cast<blasint>(k), b.data(), static_cast<blasint>(n), 0.0, h.reference.data(),
                static_cast<blasint>(n));
    return h;
  });
}

template struct GemmProblem<float>;
template struct GemmProblem<double>;

namespace {
template <typename T>
std::shared_ptr<const Problem> build(const ProblemSize& s, std::uint64_t seed) {
  auto p = std::make_shared<GemmProblem<T>>();
  p->m = s.m;
  p->n = s.n;
  p->k = s.k;
  p->seed = seed;
  return p;
}
}  // namespace

std::shared_ptr<const Problem> make_problem(const Point& point, std::uint64_t seed) {
  if (point.dtype == Dtype::f64) return build<double>(*point.size, seed);
  return build<float>(*point.size, seed);
}

double flops(const Point& point) {
  const auto& s = *point.size;
  return 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
}

double bytes(const Point& point) {
  const auto& s = *point.size;
  const double elements = static_cast<double>(s.m) * static_cast<double>(s.k) +
                          static_cast<double>(s.k) * static_cast<double>(s.n) +
                          static_cast<double>(s.m) * static_cast<double>(s.n);
  return elements * static_cast<double>(dtype_bytes(point.dtype.value_or(Dtype::f32)));
}

}  // namespace runner::kernels::gemm
