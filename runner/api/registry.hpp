#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runner/api/axis.hpp"
#include "runner/api/dtype.hpp"
#include "runner/api/measure_mode.hpp"
#include "runner/api/point.hpp"
#include "runner/api/workload.hpp"

namespace runner {

enum class Backend { cpu, cuda };
inline std::string_view backend_name(Backend b) { return b == Backend::cpu ? "cpu" : "cuda"; }

using WorkloadFactory =
    std::function<std::unique_ptr<Workload>(const Point&, std::shared_ptr<const Problem>)>;

// One implementation of a kernel. `axes` lists the axes it uses beyond its kernel's own (block for
// CUDA variants, threads for OpenMP ones): an axis a variant does not use is never expanded for it.
struct VariantInfo {
  std::string name;
  Backend backend = Backend::cpu;
  std::vector<Axis> axes;
  std::vector<Dtype> dtypes;  // empty: every dtype of the kernel
  Precision precision = Precision::native;
  std::string description;
  // Null when the variant was not compiled into this binary (a CUDA variant in a CPU-only build).
  WorkloadFactory factory;
  std::string unavailable_reason;

  bool uses(Axis a) const;
};

// A kernel family and its variants, registered declaratively from kernels/<family>/*_registration.cpp.
struct KernelInfo {
  std::string name;
  std::string description;
  std::vector<Axis> axes;     // axes every variant uses (size, dtype, kernel_size, ...)
  std::vector<Dtype> dtypes;  // dtypes the kernel exists in
  // Work of one execution, for gflops; 0 when the kernel does no arithmetic worth counting.
  std::function<double(const Point&)> flops;
  // Fewest bytes one execution must move: each input read once, each output written once.
  std::function<double(const Point&)> bytes;
  // Length of the sum behind each output element, for the verification tolerance.
  std::function<std::int64_t(const Point&)> reduction_length;
  // Builds inputs from the seed and computes the reference output.
  std::function<std::shared_ptr<const Problem>(const Point&, std::uint64_t seed)> make_problem;
  // The variant every other of the same backend is compared with (`pct_of_<name>` column), if any.
  std::string ceiling_variant;
  // How its points are measured when the config has no `measure:` key: cold for memory-bound
  // kernels, hot for compute-bound ones (runner/api/measure_mode.hpp). Unset: measure_mode() decides.
  std::optional<MeasureMode> default_measure;
  std::vector<VariantInfo> variants;

  const VariantInfo* find_variant(std::string_view name) const;
  bool uses(Axis a) const;
  // default_measure, or cold (hot for gemm) when the registration does not say.
  MeasureMode measure_mode() const;
};

// Every kernel linked into this binary.
class Registry {
 public:
  static Registry& instance();
  void add(KernelInfo kernel);
  const KernelInfo* find(std::string_view kernel) const;
  const std::vector<KernelInfo>& kernels() const { return kernels_; }
  std::vector<std::string> kernel_names() const;

 private:
  std::vector<KernelInfo> kernels_;
};

// Declares a kernel at static-initialisation time: `RUNNER_REGISTER_KERNEL(make_gemm_kernel);`
// where make_gemm_kernel() returns a KernelInfo. Kernel objects are linked as an OBJECT library so
// that the linker keeps these registrations.
struct KernelRegistration {
  explicit KernelRegistration(KernelInfo (*make)()) { Registry::instance().add(make()); }
};
#define RUNNER_REGISTER_KERNEL(make_fn) \
  static const ::runner::KernelRegistration runner_registration_##make_fn{&make_fn}

// A CUDA variant's factory: the function in builds with CUDA, empty otherwise (the registry then
// marks the variant unavailable, "built without CUDA"), so registration files need no #ifdef.
#ifdef RUNNER_HAVE_CUDA
#define RUNNER_CUDA_FACTORY(fn) ::runner::WorkloadFactory(fn)
#else
#define RUNNER_CUDA_FACTORY(fn) ::runner::WorkloadFactory()
#endif


}  // namespace runner
