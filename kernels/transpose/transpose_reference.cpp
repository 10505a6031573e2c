#include "kernels/common/host_parallel.hpp"
#include "kernels/common/random_fill.hpp"
#include "kernels/transpose/transpose_problem.hpp"
#include "runner/api/dtype.hpp"

namespace runner::kernels::transpose {

template <typename T>
const TransposeHostData<T>& TransposeProblem<T>::host() const {
  return host_.get([this] {
    TransposeHostData<T> h;
    h.m = m;
    h.n = n;
    const auto count = static_cast<std::size_t>(m * n);
    h.input = HostArray<T>(count);
    fill_uniform<T>(h.input.span(), seed, 0);
    // The plainest loop there is, so that the reference is obviously right: out[j][i] = in[i][j].
    // Parallel over output rows (each thread writes its own rows) only to keep 8192² quick.
    h.reference.resize(count);
    const T* in = h.input.data();
    double* ref = h.reference.data();
    const std::int64_t rows = m, cols = n;
#pragma omp parallel for schedule(static) if (rows * cols >= kHostParallelFrom)
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t i = 0; i < rows; ++i)
        ref[j * rows + i] = static_cast<double>(in[i * cols + j]);
    return h;
  });
}

template struct TransposeProblem<float>;
template struct TransposeProblem<double>;

namespace {
template <typename T>
std::shared_ptr<const Problem> build(const ProblemSize& s, std::uint64_t seed) {
  auto p = std::make_shared<TransposeProblem<T>>();
  p->m = s.m;
  p->n = s.n;
  p->seed = seed;
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
