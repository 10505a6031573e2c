#include "tests/unit/fake_kernels.hpp"

#include <stdexcept>

namespace runner::testing {

namespace {

std::unique_ptr<Workload> never_runs(const Point&, std::shared_ptr<const Problem>) {
  throw std::logic_error("fake kernels cannot run");
}

double extent(const Point& p, std::int64_t ProblemSize::*dim) {
  return p.size ? static_cast<double>((*p.size).*dim) : 0.0;
}
double element_bytes(const Point& p) {
  return static_cast<double>(dtype_bytes(p.dtype.value_or(Dtype::f32)));
}

KernelInfo fake_gemm() {
  KernelInfo k;
  k.name = "gemm";
  k.axes = {Axis::size, Axis::dtype};
  k.dtypes = {Dtype::f32, Dtype::f64};
  k.flops = [](const Point& p) {
    return 2.0 * extent(p, &ProblemSize::m) * extent(p, &ProblemSize::n) *
           extent(p, &ProblemSize::k);
  };
  k.bytes = [](const Point& p) {
    const double m = extent(p, &ProblemSize::m), n = extent(p, &ProblemSize::n),
                 kk = extent(p, &ProblemSize::k);
    return (m * kk + kk * n + m * n) * element_bytes(p);
  };
  k.variants = {
      {.name = "omp_serial", .backend = Backend::cpu, .factory = never_runs},
      {.name = "omp_blocked",
       .backend = Backend::cpu,
       .axes = {Axis::threads},
       .factory = never_runs},
      {.name = "cuda_tiled",
       .backend = Backend::cuda,
       .axes = {Axis::block},
       .factory = never_runs},
      {.name = "cuda_tf32",
       .backend = Backend::cuda,
       .axes = {Axis::block},
       .dtypes = {Dtype::f32},
       .precision = Precision::tf32,
       .factory = never_runs},
  };
  return k;
}

KernelInfo fake_transpose() {
  KernelInfo k;
  k.name = "transpose";
  k.axes = {Axis::size, Axis::dtype};
  k.dtypes = {Dtype::f32, Dtype::f64};
  k.bytes = [](const Point& p) {
    return 2.0 * extent(p, &ProblemSize::m) * extent(p, &ProblemSize::n) * element_bytes(p);
  };
  k.ceiling_variant = "copy";
  k.variants = {
      {.name = "copy", .backend = Backend::cuda, .axes = {Axis::block}, .factory = never_runs},
      {.name = "naive", .backend = Backend::cuda, .axes = {Axis::block}, .factory = never_runs},
      {.name = "omp_serial", .backend = Backend::cpu, .factory = never_runs},
      {.name = "omp_tiled",
       .backend = Backend::cpu,
       .axes = {Axis::threads},
       .factory = never_runs},
  };
  return k;
}

KernelInfo fake_conv2d() {
  KernelInfo k;
  k.name = "conv2d";
  k.axes = {Axis::size, Axis::dtype, Axis::kernel_size};
  k.dtypes = {Dtype::f32, Dtype::f64};
  k.flops = [](const Point& p) {
    const double ks = p.kernel_size.value_or(1);
    return 2.0 * ks * ks * extent(p, &ProblemSize::m) * extent(p, &ProblemSize::n);
  };
  k.bytes = [](const Point& p) {
    return 2.0 * extent(p, &ProblemSize::m) * extent(p, &ProblemSize::n) * element_bytes(p);
  };
  k.variants = {
      {.name = "omp_serial", .backend = Backend::cpu, .factory = never_runs},
      {.name = "omp_parallel",
       .backend = Backend::cpu,
       .axes = {Axis::threads},
       .factory = never_runs},
      {.name = "cuda_direct",
       .backend = Backend::cuda,
       .axes = {Axis::block},
       .factory = never_runs},
  };
  return k;
}

}  // namespace

const Registry& fake_registry() {
  static const Registry registry = [] {
    Registry r;
    r.add(fake_gemm());
    r.add(fake_transpose());
    r.add(fake_conv2d());
    return r;
  }();
  return registry;
}

ExperimentSpec parse(const std::string& yaml) {
  return parse_config(yaml, "test.yaml");
}

}  // namespace runner::testing
