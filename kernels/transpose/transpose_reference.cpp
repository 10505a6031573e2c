#include "kernels/common/host_parallel.hpp"
#include "kernels/common/random_fill.hpp"
#include "kernels/transpose/transpose_problem.hpp"
#include "runner/api/dtype.hpp"

namespace runner::kernels::transpose {

namespace {
template <typename T>
std::shared_ptr<const Problem> build(const ProblemSize& s, std::uint64_t seed) {
  auto p = std::make_shared<TransposeProblem<T>>();
  p->m = s.m;
  p->n = s.n;
  const auto count = static_cast<std::size_t>(s.m * s.n);
  p->input = HostArray<T>(count);
  fill_uniform<T>(p->input.span(), seed, 0);
  // The plainest loop there is, so that the reference is obviously right: out[j][i] = in[i][j].
  // Parallel over output rows (each thread writes its own rows) only to keep 8192² quick.
  p->reference.resize(count);
  const T* in = p->input.data();
  double* ref = p->reference.data();
  const std::int64_t m = s.m, n = s.n;
#pragma omp parallel for schedule(static) if (m * n >= kHostParallelFrom)
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) ref[j * m + i] = static_cast<double>(in[i * n + j]);
  return p;
}
}  // namespace

std::shared_ptr<const Problem> make_problem(const Point& point, std::uint64_t seed) {
  if (point.dtype == Dtype::f64) return build<double>(*point.size, seed);
  return build<float>(*point.size, seed);
}

double bytes(const Point& point) {
  const auto& s = *point.size;
  return 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) *
         static_cast<double>(dtype_bytes(point.dtype.value_or(Dtype::f32)));
}

}  // namespace runner::kernels::transpose
