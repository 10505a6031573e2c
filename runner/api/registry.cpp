#include "runner/api/registry.hpp"

#include <algorithm>
#include <stdexcept>

namespace runner {

bool VariantInfo::uses(Axis a) const { return std::find(axes.begin(), axes.end(), a) != axes.end(); }

const VariantInfo* KernelInfo::find_variant(std::string_view variant_name) const {
  for (const auto& v : variants)
    if (v.name == variant_name) return &v;
  return nullptr;
}

bool KernelInfo::uses(Axis a) const { return std::find(axes.begin(), axes.end(), a) != axes.end(); }

MeasureMode KernelInfo::measure_mode() const {
  if (default_measure) return *default_measure;
  // Cold is the honest default: a kernel that streams its data must not be timed on inputs the
  // previous sample left in the L2. GEMM reuses each element O(k) times from shared memory and
  // registers, so its time does not depend on the cache state and hot batches measure it with less
  // noise. (The gemm registration is the place for this; the name keeps the default while that
  // file is being reworked.)
  return name == "gemm" ? MeasureMode::hot : MeasureMode::cold;
}

Registry& Registry::instance() {
  static Registry registry;
  return registry;
}

void Registry::add(KernelInfo kernel) {
  if (find(kernel.name)) throw std::logic_error("kernel registered twice: " + kernel.name);
  for (auto& v : kernel.variants)
    if (!v.factory && v.unavailable_reason.empty())
      v.unavailable_reason = v.backend == Backend::cuda ? "built without CUDA" : "not built";
  // Keep a stable, alphabetical order so `runner list` and expansion do not depend on link order.
  auto at = std::lower_bound(kernels_.begin(), kernels_.end(), kernel.name,
                             [](const KernelInfo& k, const std::string& n) { return k.name < n; });
  kernels_.insert(at, std::move(kernel));
}

const KernelInfo* Registry::find(std::string_view kernel) const {
  for (const auto& k : kernels_)
    if (k.name == kernel) return &k;
  return nullptr;
}

std::vector<std::string> Registry::kernel_names() const {
  std::vector<std::string> names;
  for (const auto& k : kernels_) names.push_back(k.name);
  return names;
}

}  // namespace runner
