#include "runner/plugin/plugins.hpp"

#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "runner/spec/config_error.hpp"

namespace runner::plugin {

namespace {

[[noreturn]] void fail_at(const ExperimentSpec& spec, const PluginEntry& entry,
                          const std::string& what) {
  throw ConfigError(spec.file.string(), entry.where.line, entry.where.column, what);
}

}  // namespace

std::vector<LoadedPlugin> load_plugins(const ExperimentSpec& spec, Registry& registry,
                                       const PluginOptions& options) {
  const std::filesystem::path cache =
      options.cache_dir.empty() ? default_cache_dir() : options.cache_dir;
  std::vector<LoadedPlugin> loaded;
  std::map<std::string, const PluginEntry*> entry_of;  // label -> its entry
  for (const auto& entry : spec.plugins) {
    try {
      const BuiltPlugin built = build_plugin(entry.path, cache);
      if (!options.quiet && built.language != PluginLanguage::library)
        spdlog::info("plugin {}: {}", entry.written,
                     built.from_cache ? "unchanged, from the cache"
                                      : fmt::format("compiled in {:.1f} s", built.build_s));
      loaded.push_back(load_plugin(built, registry));
      entry_of[loaded.back().label] = &entry;
    } catch (const PluginCompileError& e) {
      throw ConfigError(spec.file.string(), entry.where.line, entry.where.column, e.summary())
          .with_details(e.output());
    } catch (const UsageError& e) {
      fail_at(spec, entry, e.what());
    }
  }
  // A variant of a family that no plugin and no built-in kernel registered.
  const auto orphans = registry.orphan_variants();
  if (!orphans.empty()) {
    const auto& [kernel, variant, label] = orphans.front();
    const auto it = entry_of.find(label);
    const std::string message = fmt::format(
        "plugin {}: variant {}/{} names the kernel family '{}', which neither the runner nor a "
        "plugin of this config registers (families: {})",
        it == entry_of.end() ? label : it->second->written, kernel, variant, kernel,
        fmt::join(registry.kernel_names(), ", "));
    if (it != entry_of.end()) fail_at(spec, *it->second, message);
    throw ConfigError(spec.file.string(), 0, 0, message);
  }
  return loaded;
}

nlohmann::json plugins_manifest(const std::vector<LoadedPlugin>& plugins) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& p : plugins) {
    nlohmann::json headers = nlohmann::json::array();
    for (const auto& h : p.build.headers) headers.push_back(h.string());
    list.push_back({{"label", p.label},
                    {"file", p.build.source.filename().string()},
                    {"path", p.build.source.string()},
                    {"content_hash", p.build.content_hash},
                    {"headers", headers},
                    {"library", p.build.library.string()},
                    {"toolchain", p.build.toolchain},
                    {"abi", plugin_abi()},
                    {"kernels", p.registered.kernels},
                    {"variants", p.registered.variants}});
  }
  return list;
}

}  // namespace runner::plugin
