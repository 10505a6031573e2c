#pragma once
// The user's cache of the runner, per the XDG base directory convention: what a run may keep
// between runs and reuse from any working directory (plugin builds, the machines' calibrated
// ceilings), never inside an installed prefix.
#include <filesystem>
#include <string_view>

namespace runner {

// $XDG_CACHE_HOME/runner/<what>, else $HOME/.cache/runner/<what>, else (no home: a batch system
// that sets none) <temp>/runner-<what>-<uid>.
std::filesystem::path user_cache_dir(std::string_view what);

}  // namespace runner
