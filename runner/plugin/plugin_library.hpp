#pragma once
// Loading a plugin library into the runner.
//
// A plugin's static initialisers register its kernels and variants (the same RUNNER_* lines as
// the built-in ones). They run first in a probe: a child process that loads the library and reads
// its stamp. A library that cannot be loaded (a missing symbol, a missing dependency), was built
// for another build of the runner, or crashes or hangs while loading is refused there, with the
// loader's message, and the runner is untouched. Then the runner loads it itself, so that its
// variants are known to the matrix and inherited by every worker process, where all of the
// plugin's work runs: problems, workloads, kernels (runner/run/worker_process.hpp).
#include <string>

#include "runner/api/registry.hpp"
#include "runner/base/errors.hpp"
#include "runner/plugin/plugin_build.hpp"

namespace runner::plugin {

struct LoadedPlugin {
  BuiltPlugin build;
  std::string label;  // "file.cu@1a2b3c4d": the records' `plugin` column
  Registry::PluginRegistrations registered;
};

// The plugin cannot be used: what() says why, naming the file. Exit code 2.
class PluginLoadError : public UsageError {
 public:
  using UsageError::UsageError;
};

// "my_transpose.cu@1a2b3c4d" for a built plugin.
std::string plugin_label(const BuiltPlugin& built);

// Probes, then loads `built` into this process and registers what it declares with `registry`.
// PluginLoadError when the probe fails, the stamp is another build's, the plugin registers nothing
// or a name that is taken.
LoadedPlugin load_plugin(const BuiltPlugin& built, Registry& registry);

}  // namespace runner::plugin
