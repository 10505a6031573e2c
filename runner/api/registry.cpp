#include "runner/api/registry.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace runner {

bool VariantInfo::uses(Axis a) const {
  return std::find(axes.begin(), axes.end(), a) != axes.end();
}

const VariantInfo* KernelInfo::find_variant(std::string_view variant_name) const {
  for (const auto& v : variants)
    if (v.name == variant_name) return &v;
  return nullptr;
}

bool KernelInfo::uses(Axis a) const {
  return std::find(axes.begin(), axes.end(), a) != axes.end();
}

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

namespace {

void fill_unavailable_reason(VariantInfo& v) {
  if (!v.factory && v.unavailable_reason.empty())
    v.unavailable_reason = is_gpu(v.backend) ? "built without CUDA" : "not built";
}

}  // namespace

void Registry::clash(const std::string& what) const {
  if (loading_plugin_.empty()) throw std::logic_error(what);
  loaded_.problems.push_back(what);
}

namespace {

std::string origin(const std::string& plugin) {
  return plugin.empty() ? "built in" : "from " + plugin;
}

}  // namespace

void Registry::add(KernelInfo kernel) {
  settle();
  kernel.plugin = loading_plugin_;
  for (const auto& k : kernels_)
    if (k.name == kernel.name)
      return clash("kernel " + kernel.name + " registered twice (" + origin(k.plugin) + " and " +
                   origin(kernel.plugin) + ")");
  for (auto& v : kernel.variants) {
    fill_unavailable_reason(v);
    v.plugin = loading_plugin_;
    if (!loading_plugin_.empty()) loaded_.variants.push_back(kernel.name + "/" + v.name);
  }
  if (!loading_plugin_.empty()) loaded_.kernels.push_back(kernel.name);
  // Keep a stable, alphabetical order so `runner list` and expansion do not depend on link order.
  auto at = std::lower_bound(kernels_.begin(), kernels_.end(), kernel.name,
                             [](const KernelInfo& k, const std::string& n) { return k.name < n; });
  kernels_.insert(at, std::move(kernel));
}

void Registry::add_variant(std::string kernel, VariantInfo variant) {
  fill_unavailable_reason(variant);
  variant.plugin = loading_plugin_;
  pending_.emplace_back(std::move(kernel), std::move(variant));
}

void Registry::settle() const {
  // Kernels may register after their variants (another file's static object): variants of a
  // kernel not registered yet wait.
  std::vector<std::pair<std::string, VariantInfo>> waiting;
  for (auto& entry : pending_) {
    // (No structured binding: clang before 16 cannot capture one in the lambda.)
    std::string& kernel = entry.first;
    VariantInfo& variant = entry.second;
    auto it = std::find_if(kernels_.begin(), kernels_.end(),
                           [&](const KernelInfo& k) { return k.name == kernel; });
    if (it == kernels_.end()) {
      waiting.emplace_back(std::move(kernel), std::move(variant));
      continue;
    }
    if (const VariantInfo* taken = it->find_variant(variant.name)) {
      clash("variant " + kernel + "/" + variant.name + " registered twice (" +
            origin(taken->plugin) + " and " + origin(variant.plugin) + ")");
      continue;
    }
    if (!variant.plugin.empty() && variant.plugin == loading_plugin_)
      loaded_.variants.push_back(kernel + "/" + variant.name);
    it->variants.push_back(std::move(variant));
  }
  pending_ = std::move(waiting);
}

void Registry::begin_plugin(std::string label) {
  settle();
  loading_plugin_ = std::move(label);
  loaded_ = {};
}

Registry::PluginRegistrations Registry::end_plugin() {
  settle();
  // A variant of a family the plugin has not registered (yet) waits like any other: counted as
  // the plugin's all the same.
  for (const auto& [kernel, variant] : pending_)
    if (variant.plugin == loading_plugin_) loaded_.variants.push_back(kernel + "/" + variant.name);
  loading_plugin_.clear();
  return std::exchange(loaded_, {});
}

std::vector<std::tuple<std::string, std::string, std::string>> Registry::orphan_variants() const {
  settle();
  std::vector<std::tuple<std::string, std::string, std::string>> orphans;
  for (const auto& [kernel, variant] : pending_)
    orphans.emplace_back(kernel, variant.name, variant.plugin);
  return orphans;
}

const std::vector<KernelInfo>& Registry::kernels() const {
  settle();
  if (!pending_.empty())
    throw std::logic_error("variant " + pending_.front().first + "/" +
                           pending_.front().second.name + " names a kernel that is not registered");
  return kernels_;
}

const KernelInfo* Registry::find(std::string_view kernel) const {
  for (const auto& k : kernels())
    if (k.name == kernel) return &k;
  return nullptr;
}

std::vector<std::string> Registry::kernel_names() const {
  settle();  // not kernels(): the names are known while a variant still waits for its family
  std::vector<std::string> names;
  for (const auto& k : kernels_) names.push_back(k.name);
  return names;
}

VariantRegistration::VariantRegistration(const char* kernel, const char* name, Backend backend,
                                         VariantInfo info, WorkloadFactory factory,
                                         const char* unavailable_reason) {
  info.name = name;
  info.backend = backend;
  info.factory = std::move(factory);
  if (!info.factory) info.unavailable_reason = unavailable_reason;
  Registry::instance().add_variant(kernel, std::move(info));
}

}  // namespace runner
