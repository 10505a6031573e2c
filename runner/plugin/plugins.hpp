#pragma once
// The plugins of a config (`plugins:`), built and loaded before its matrix is expanded, so that
// their kernels and variants are named like the built-in ones (docs/own-kernel.md).
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/api/registry.hpp"
#include "runner/plugin/plugin_library.hpp"
#include "runner/spec/config.hpp"

namespace runner::plugin {

struct PluginOptions {
  std::filesystem::path cache_dir;  // default_cache_dir() when empty
  bool quiet = false;               // no line per plugin on stderr
  // A submitted run's folder: its plugins/ holds the libraries `runner submit` built and copied
  // (copy_into_run), which are loaded instead of building the config's entries, so that what a
  // shard runs is what was submitted whatever happened to the sources since.
  std::filesystem::path submitted_run;
};

// The file of a submitted run that lists its plugin copies (plugins/plugins.json).
std::filesystem::path submitted_plugins_file(const std::filesystem::path& run_dir);

// Copies every plugin's source, user headers and library into RUN_DIR/plugins/ and writes
// plugins.json there (what PluginOptions::submitted_run reads). Refused when a copy fails.
void copy_into_run(const std::vector<LoadedPlugin>& plugins, const ExperimentSpec& spec,
                   const std::filesystem::path& run_dir);

// Builds (or takes from the cache) and loads every plugin of `spec`, in order. Any problem is a
// ConfigError located at its entry of `plugins:` (exit 2): a missing file, a compile error (with
// the compiler's output), a library that cannot be loaded or is another build's, a plugin that
// registers nothing, a name already taken, a variant of a family nobody registered.
std::vector<LoadedPlugin> load_plugins(const ExperimentSpec& spec, Registry& registry,
                                       const PluginOptions& options = {});

// The manifest's `plugins`: each plugin's file, full content hash, headers, compiler and flags,
// what it registered.
nlohmann::json plugins_manifest(const std::vector<LoadedPlugin>& plugins);

}  // namespace runner::plugin
