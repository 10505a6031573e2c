// `runner plugin build FILE...` and `runner plugin abi`: a user's kernels built ahead of a run,
// and the stamp a plugin built by CMake carries (runner/plugin/, docs/own-kernel.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runner/api/registry.hpp"
#include "runner/base/exit_codes.hpp"
#include "runner/cli/commands.hpp"
#include "runner/plugin/plugins.hpp"

namespace runner::cli {

std::vector<plugin::LoadedPlugin> load_plugin_files(const std::vector<std::string>& files) {
  std::vector<plugin::LoadedPlugin> loaded;
  const auto cache = plugin::default_cache_dir();
  for (const auto& file : files)
    loaded.push_back(plugin::load_plugin(plugin::build_plugin(file, cache), Registry::instance()));
  const auto orphans = Registry::instance().orphan_variants();
  if (!orphans.empty()) {
    const auto& [kernel, variant, label] = orphans.front();
    throw UsageError(fmt::format(
        "plugin {}: variant {}/{} names the kernel family '{}', which neither the runner nor "
        "these plugins register (families: {})",
        label, kernel, variant, kernel, fmt::join(Registry::instance().kernel_names(), ", ")));
  }
  return loaded;
}

int plugin_build_command(const std::vector<std::string>& files) {
  for (const auto& p : load_plugin_files(files)) {
    fmt::print("{}: {} ({}), {}\n", p.label, p.build.library.string(),
               p.build.from_cache ? "unchanged, from the cache"
                                  : fmt::format("compiled in {:.1f} s", p.build.build_s),
               p.registered.kernels.empty()
                   ? fmt::format("variants {}", fmt::join(p.registered.variants, ", "))
                   : fmt::format("kernels {}, variants {}", fmt::join(p.registered.kernels, ", "),
                                 fmt::join(p.registered.variants, ", ")));
  }
  return exit_code::kOk;
}

int plugin_abi_command() {
  fmt::print("{}\n", plugin::plugin_abi());
  return exit_code::kOk;
}

}  // namespace runner::cli
