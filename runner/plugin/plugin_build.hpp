#pragma once
// A plugin source turned into a library the runner can load, through a cache keyed by content.
//
// The cache (PluginCache::default_dir(): $RUNNER_PLUGIN_CACHE, else $XDG_CACHE_HOME/runner/plugins,
// else ~/.cache/runner/plugins) holds one entry per (source bytes, plugin ABI, toolchain): the
// library, and plugin.json with the user headers the source included and their hashes. An entry
// is used when all of them still match; any edit to the source or to one of its headers, another
// build of the runner or other flags compiles again. Entries are written whole (files renamed into
// place) under a lock, so two runs that need the same plugin compile it once.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "runner/base/errors.hpp"
#include "runner/plugin/plugin_toolchain.hpp"

namespace runner::plugin {

// A plugin ready to load.
struct BuiltPlugin {
  std::filesystem::path source;   // the file the config names (absolute); the .so itself for one
  std::filesystem::path library;  // what to load
  PluginLanguage language = PluginLanguage::library;
  // 32 hex digits over the source and every user header it includes (a given .so: its bytes).
  std::string content_hash;
  std::vector<std::filesystem::path> headers;  // user headers the source includes
  std::string toolchain;                       // compiler and flags; empty for a given .so
  bool from_cache = false;                     // no compilation was needed
  double build_s = 0;                          // seconds spent compiling (0 from the cache)
};

// The source does not compile (or its library does not link): summary() says so in a line, naming
// the file; output() is the compiler's, file:line first; what() both. Exit code 2.
class PluginCompileError : public UsageError {
 public:
  PluginCompileError(const std::string& summary, const std::string& output)
      : UsageError(output.empty() ? summary : summary + "\n" + output),
        summary_(summary),
        output_(output) {}
  const std::string& summary() const { return summary_; }
  const std::string& output() const { return output_; }

 private:
  std::string summary_, output_;
};

// $RUNNER_PLUGIN_CACHE, else $XDG_CACHE_HOME/runner/plugins, else $HOME/.cache/runner/plugins.
std::filesystem::path default_cache_dir();

// The library of `source`: from the cache when an entry matches, else compiled into it (a .so is
// taken as it is). `display` is how messages name the file (as the config or command line wrote
// it). UsageError for a missing file or an unsupported kind; PluginCompileError when it does not
// build.
BuiltPlugin build_plugin(const std::filesystem::path& source,
                         const std::filesystem::path& cache_dir);

// The paths a make-style dependency file lists (target excluded), as written.
std::vector<std::string> parse_depfile(const std::string& text);

}  // namespace runner::plugin
