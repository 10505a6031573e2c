#include "runner/plugin/plugins.hpp"

#include <fstream>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "runner/base/durable_file.hpp"
#include "runner/spec/config_error.hpp"

namespace runner::plugin {

namespace {

[[noreturn]] void fail_at(const ExperimentSpec& spec, const PluginEntry& entry,
                          const std::string& what) {
  throw ConfigError(spec.file.string(), entry.where.line, entry.where.column, what);
}

// The submitted copy of `entry`: its library and the content hash of its sources when it was
// submitted. Nullopt when the run's plugins.json does not list it.
std::optional<BuiltPlugin> submitted_copy(const std::filesystem::path& run,
                                          const PluginEntry& entry) {
  const std::filesystem::path list = submitted_plugins_file(run);
  std::ifstream in(list);
  if (!in) return std::nullopt;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    throw Refused(fmt::format("{} cannot be read: {}", list.string(), e.what()));
  }
  for (const auto& p : doc) {
    if (p.value("written", "") != entry.written) continue;
    BuiltPlugin built;
    built.source = run / "plugins" / p.value("source_copy", "");
    built.library = run / "plugins" / p.value("library_copy", "");
    built.language = PluginLanguage::library;
    built.content_hash = p.value("content_hash", "");
    built.toolchain = p.value("toolchain", "");
    built.from_cache = true;
    if (built.library.filename().empty() || !std::filesystem::exists(built.library))
      throw Refused(fmt::format("the submitted copy of plugin {} is missing: {}", entry.written,
                                built.library.string()));
    return built;
  }
  return std::nullopt;
}

}  // namespace

std::filesystem::path submitted_plugins_file(const std::filesystem::path& run_dir) {
  return run_dir / "plugins" / "plugins.json";
}

void copy_into_run(const std::vector<LoadedPlugin>& plugins, const ExperimentSpec& spec,
                   const std::filesystem::path& run_dir) {
  namespace fs = std::filesystem;
  const fs::path dir = run_dir / "plugins";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Refused(fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  nlohmann::json list = nlohmann::json::array();
  auto copy = [&](const fs::path& from, const fs::path& to) {
    fs::create_directories(to.parent_path(), ec);
    fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
    if (ec)
      throw Refused(
          fmt::format("cannot copy {} to {}: {}", from.string(), to.string(), ec.message()));
  };
  for (std::size_t i = 0; i < plugins.size(); ++i) {
    const LoadedPlugin& p = plugins[i];
    // One folder per plugin: two plugins may have files of the same name.
    const fs::path own = fmt::format("{}-{}", i, p.build.source.stem().string());
    const fs::path source = own / p.build.source.filename();
    const fs::path library = own / (p.build.source.stem().string() + ".so");
    copy(p.build.source, dir / source);
    copy(p.build.library, dir / library);
    nlohmann::json headers = nlohmann::json::array();
    for (const auto& h : p.build.headers) {
      const fs::path copied = own / "headers" / h.filename();
      copy(h, dir / copied);
      headers.push_back({{"path", h.string()}, {"copy", copied.string()}});
    }
    list.push_back({{"written", spec.plugins.at(i).written},
                    {"label", p.label},
                    {"content_hash", p.build.content_hash},
                    {"toolchain", p.build.toolchain},
                    {"source_copy", source.string()},
                    {"library_copy", library.string()},
                    {"headers", headers}});
  }
  write_file_atomically(submitted_plugins_file(run_dir), list.dump(2) + "\n");
}

std::vector<LoadedPlugin> load_plugins(const ExperimentSpec& spec, Registry& registry,
                                       const PluginOptions& options) {
  const std::filesystem::path cache =
      options.cache_dir.empty() ? default_cache_dir() : options.cache_dir;
  std::vector<LoadedPlugin> loaded;
  std::map<std::string, const PluginEntry*> entry_of;  // label -> its entry
  for (const auto& entry : spec.plugins) {
    std::optional<BuiltPlugin> submitted;
    if (!options.submitted_run.empty()) submitted = submitted_copy(options.submitted_run, entry);
    if (std::error_code ec; !submitted && !std::filesystem::exists(entry.path, ec))
      fail_at(spec, entry,
              fmt::format("plugin {}: no such file (looked for {}; a plugin's path is relative to "
                          "the config's folder)",
                          entry.written, entry.path.string()));
    try {
      const BuiltPlugin built = submitted ? *submitted : build_plugin(entry.path, cache);
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
