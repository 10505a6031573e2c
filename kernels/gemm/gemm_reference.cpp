#include <cblas.h>

#include "kernels/common/random_fill.hpp"
#include "kernels/gemm/gemm_problem.hpp"
#include "runner/api/dtype.hpp"
#include "runner/api/openblas_pool.hpp"

namespace runner::kernels::gemm {

namespace {
template <typename T>
std::shared_ptr<const Problem> build(const ProblemSize& s, std::uint64_t seed) {
  auto p = std::make_shared<GemmProblem<T>>();
  p->m = s.m;
  p->n = s.n;
  p->k = s.k;
  p->a = HostArray<T>(static_cast<std::size_t>(s.m * s.k));
  p->b = HostArray<T>(static_cast<std::size_t>(s.k * s.n));
  fill_uniform<T>(p->a.span(), seed, 0);
  fill_uniform<T>(p->b.span(), seed, 1);
  start_openblas_pool_unpinned();  // before this process's first BLAS call
  // The reference multiplies exactly the values the variants see, widened to double.
  std::vector<double> a(p->a.data(), p->a.data() + p->a.size()), b(p->b.data(), p->b.data() + p->b.size());
  p->reference.assign(static_cast<std::size_t>(s.m * s.n), 0.0);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(s.m), static_cast<blasint>(s.n),
              static_cast<blasint>(s.k), 1.0, a.data(), static_cast<blasint>(s.k), b.data(),
              static_cast<blasint>(s.n), 0.0, p->reference.data(), static_cast<blasint>(s.n));
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
