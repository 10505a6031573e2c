#include "runner/plugin/plugin_library.hpp"

#include <dlfcn.h>

#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runner/base/forked_call.hpp"
#include "runner/plugin/plugin_toolchain.hpp"

namespace runner::plugin {

namespace {

// A plugin whose static initialisers run longer than this while loading is taken as hung.
constexpr int kProbeTimeoutSeconds = 60;

std::string name_of(const BuiltPlugin& built) {
  return built.source.filename().string();
}

// Loads the library in a child process and returns what the child reported: "stamp:ABI",
// "nostamp" or "dlerror:MESSAGE". PluginLoadError when it crashed or hung.
std::string probe(const BuiltPlugin& built) {
  const ForkedCallResult r = run_forked(
      [&]() -> std::string {
        void* handle = ::dlopen(built.library.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
          const char* err = ::dlerror();
          return fmt::format("dlerror:{}", err ? err : "unknown error");
        }
        if (const auto* stamp = static_cast<const char*>(::dlsym(handle, "runner_plugin_abi")))
          return fmt::format("stamp:{}", stamp);
        return "nostamp";
      },
      kProbeTimeoutSeconds);
  if (r.hung)
    throw PluginLoadError(fmt::format(
        "plugin {}: loading it did not finish within {} s (its static initialisers hang?)",
        name_of(built), kProbeTimeoutSeconds));
  if (r.signal)
    throw PluginLoadError(
        fmt::format("plugin {}: it crashed while loading ({})", name_of(built), r.how_it_ended()));
  if (!r.finished || r.text.empty())
    throw PluginLoadError(
        fmt::format("plugin {}: loading it ended the process ({}) before it could be checked",
                    name_of(built), r.how_it_ended()));
  return r.text;
}

}  // namespace

std::string plugin_label(const BuiltPlugin& built) {
  return fmt::format("{}@{}", name_of(built), built.content_hash.substr(0, 8));
}

LoadedPlugin load_plugin(const BuiltPlugin& built, Registry& registry) {
  const std::string name = name_of(built);
  const std::string report = probe(built);
  if (report.starts_with("dlerror:"))
    throw PluginLoadError(
        fmt::format("plugin {}: it cannot be loaded: {}", name, report.substr(8)));
  if (report == "nostamp")
    throw PluginLoadError(fmt::format(
        "plugin {}: {} carries no runner stamp: it was not built by `runner plugin build` or "
        "runner_add_plugin(); list its source in plugins: and the runner builds it",
        name, built.library.string()));
  const std::string stamp = report.substr(6);
  if (stamp != plugin_abi())
    throw PluginLoadError(fmt::format(
        "plugin {}: built for another build of the runner (its stamp {}, this runner {}): its "
        "headers, compiler or flags may differ. Build it again with this runner: `runner plugin "
        "build SOURCE`, or list its source in plugins:",
        name, stamp, plugin_abi()));

  LoadedPlugin loaded;
  loaded.build = built;
  loaded.label = plugin_label(built);
  registry.begin_plugin(loaded.label);
  void* handle = ::dlopen(built.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  loaded.registered = registry.end_plugin();
  if (!handle) {
    const char* err = ::dlerror();
    throw PluginLoadError(
        fmt::format("plugin {}: it cannot be loaded: {}", name, err ? err : "unknown error"));
  }
  if (!loaded.registered.problems.empty())
    throw PluginLoadError(
        fmt::format("plugin {}: {}", name, fmt::join(loaded.registered.problems, "; ")));
  if (loaded.registered.kernels.empty() && loaded.registered.variants.empty())
    throw PluginLoadError(fmt::format(
        "plugin {}: it registers no kernel and no variant. A variant file ends with its factory "
        "(RUNNER_FACTORY) and its line (RUNNER_CPU_VARIANT or RUNNER_CUDA_VARIANT); see "
        "docs/own-kernel.md",
        name));
  return loaded;
}

}  // namespace runner::plugin
