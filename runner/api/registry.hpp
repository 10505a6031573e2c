#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "runner/api/axis.hpp"
#include "runner/api/dtype.hpp"
#include "runner/api/measure_mode.hpp"
#include "runner/api/point.hpp"
#include "runner/api/workload.hpp"

namespace runner {

// Where a variant runs: the CPU, or the GPU through the runtime of the build (GPU variants are
// `cuda` in CUDA and CPU-only builds, `hip` in HIP builds; RUNNER_CUDA_VARIANT below).
enum class Backend { cpu, cuda, hip };
inline std::string_view backend_name(Backend b) {
  return b == Backend::cpu ? "cpu" : (b == Backend::cuda ? "cuda" : "hip");
}
inline bool is_gpu(Backend b) {
  return b != Backend::cpu;
}

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
  // The plugin that registered it ("my_tile.cu@1a2b3c4d": file name and short content hash, the
  // records' `plugin` column); empty for the variants built into the binary.
  std::string plugin;

  bool uses(Axis a) const;
};

// A kernel family and its variants, registered declaratively from
// kernels/<family>/*_registration.cpp.
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
  // kernels, hot for compute-bound ones (runner/api/measure_mode.hpp). Unset: measure_mode()
  // decides.
  std::optional<MeasureMode> default_measure;
  std::vector<VariantInfo> variants;
  // The plugin that brought the family (VariantInfo::plugin); empty for the built-in ones.
  std::string plugin;

  const VariantInfo* find_variant(std::string_view name) const;
  bool uses(Axis a) const;
  // default_measure, or cold (hot for gemm) when the registration does not say.
  MeasureMode measure_mode() const;
};

// Every kernel linked into this binary. Kernels register whole (RUNNER_REGISTER_KERNEL) and
// variants one line each (RUNNER_CPU_VARIANT ...), in any order across files: a variant joins
// its kernel when the registry is first read, after static initialisation.
class Registry {
 public:
  static Registry& instance();
  void add(KernelInfo kernel);
  // A variant of `kernel`, which may be registered before or after it.
  void add_variant(std::string kernel, VariantInfo variant);
  const KernelInfo* find(std::string_view kernel) const;
  const std::vector<KernelInfo>& kernels() const;
  std::vector<std::string> kernel_names() const;

  // Plugins (runner/plugin/): what registers between begin_plugin and end_plugin (the plugin's
  // static initialisers, run by dlopen) is the plugin's, labelled with it. A name already taken
  // is not added and throws nothing there (an exception would end the process inside dlopen): it
  // is one of the problems end_plugin returns.
  struct PluginRegistrations {
    std::vector<std::string> kernels;   // families it brought
    std::vector<std::string> variants;  // kernel/variant, of any family
    std::vector<std::string> problems;  // names it took twice or took from another
  };
  void begin_plugin(std::string label);
  PluginRegistrations end_plugin();
  // Variants waiting for a family nobody registered: (kernel, variant, plugin) each.
  std::vector<std::tuple<std::string, std::string, std::string>> orphan_variants() const;

 private:
  // Attaches the variants registered so far to their kernels; std::logic_error for a name used
  // twice (a problem of the plugin being loaded, in plugin mode).
  void settle() const;
  void clash(const std::string& what) const;
  mutable std::vector<KernelInfo> kernels_;
  mutable std::vector<std::pair<std::string, VariantInfo>> pending_;
  std::string loading_plugin_;  // the plugin being loaded, between begin_plugin and end_plugin
  mutable PluginRegistrations loaded_;
};

// Declares a kernel at static-initialisation time: `RUNNER_REGISTER_KERNEL(make_gemm_kernel);`
// where make_gemm_kernel() returns a KernelInfo. Kernel objects are linked as an OBJECT library so
// that the linker keeps these registrations.
struct KernelRegistration {
  explicit KernelRegistration(KernelInfo (*make)()) { Registry::instance().add(make()); }
};
#define RUNNER_REGISTER_KERNEL(make_fn)                                     \
  static const ::runner::KernelRegistration runner_registration_##make_fn { \
    &make_fn                                                                \
  }

// One variant, as a line of its family's registration file
// (kernels/<family>/<family>_registration.cpp):
//
//   RUNNER_CPU_VARIANT(gemm, omp_naive, {.axes = {Axis::threads}, .description = "..."});
//   RUNNER_CUDA_VARIANT(gemm, naive_2d, {.axes = {Axis::block}, .description = "..."});
//
// The braces hold the VariantInfo fields after name and backend (axes, dtypes, precision,
// description), in that order. The line declares the factory `make_<variant>` in the current
// namespace; the variant's source file defines it there with RUNNER_FACTORY
// (runner/api/variant.hpp). A CUDA variant in a build without CUDA is registered all the same (so
// that configs naming it stay valid everywhere) and its points are recorded skipped, "built
// without CUDA". RUNNER_VARIANT takes the condition and the reason itself (cuDNN, say): `built`
// must expand to 0 or 1.
//
// GPU variants are written in CUDA. A portable one (RUNNER_CUDA_VARIANT) is built by the HIP build
// too, from the same source, through runner/api/gpu/runtime.hpp. One that needs what only NVIDIA
// GPUs have (mma.sync, cp.async, cuBLAS, cuDNN, code tuned to 32-thread warps) says why in its
// line, and a HIP build registers it unavailable with that reason:
//
//   RUNNER_NVIDIA_VARIANT(gemm, dmma, "FP64 tensor cores (mma.sync) and cp.async", {...});
struct VariantRegistration {
  VariantRegistration(const char* kernel, const char* name, Backend backend, VariantInfo info,
                      WorkloadFactory factory, const char* unavailable_reason);
};
#define RUNNER_PP_CAT_(a, b) a##b
#define RUNNER_PP_CAT(a, b) RUNNER_PP_CAT_(a, b)
#define RUNNER_FACTORY_IF_1(fn) ::runner::WorkloadFactory(fn)
#define RUNNER_FACTORY_IF_0(fn) ::runner::WorkloadFactory()
#define RUNNER_VARIANT(backend, built, unavailable_reason, kernel, variant, ...)                \
  std::unique_ptr<::runner::Workload> make_##variant(const ::runner::Point&,                    \
                                                     std::shared_ptr<const ::runner::Problem>); \
  static const ::runner::VariantRegistration runner_variant_##kernel##_##variant(               \
      #kernel, #variant, ::runner::Backend::backend, ::runner::VariantInfo __VA_ARGS__,         \
      RUNNER_PP_CAT(RUNNER_FACTORY_IF_, built)(make_##variant), unavailable_reason)
#define RUNNER_CPU_VARIANT(kernel, variant, ...) \
  RUNNER_VARIANT(cpu, 1, "", kernel, variant, __VA_ARGS__)
#define RUNNER_CUDA_VARIANT(kernel, variant, ...)                                             \
  RUNNER_VARIANT(RUNNER_GPU_BACKEND, RUNNER_BUILT_GPU, "built without CUDA", kernel, variant, \
                 __VA_ARGS__)
// The reason an NVIDIA-only variant is unavailable: `hip_reason` in a HIP build, `otherwise` in
// the others (where it matters only when the variant was not built).
#if RUNNER_BUILT_HIP
#define RUNNER_NVIDIA_ONLY(hip_reason, otherwise) "not available on HIP: needs " hip_reason
#else
#define RUNNER_NVIDIA_ONLY(hip_reason, otherwise) otherwise
#endif
#define RUNNER_NVIDIA_VARIANT(kernel, variant, hip_reason, ...)                         \
  RUNNER_VARIANT(RUNNER_GPU_BACKEND, RUNNER_BUILT_CUDA,                                 \
                 RUNNER_NVIDIA_ONLY(hip_reason, "built without CUDA"), kernel, variant, \
                 __VA_ARGS__)

// A CUDA variant's factory in a KernelInfo written whole (the fault-injection kernel of the
// tests): the function in builds with CUDA, empty otherwise (HIP builds included).
#ifdef RUNNER_HAVE_CUDA
#define RUNNER_CUDA_FACTORY(fn) ::runner::WorkloadFactory(fn)
#else
#define RUNNER_CUDA_FACTORY(fn) ::runner::WorkloadFactory()
#endif

}  // namespace runner
