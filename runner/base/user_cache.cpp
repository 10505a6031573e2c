#include "runner/base/user_cache.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace runner {

std::filesystem::path user_cache_dir(std::string_view what) {
  namespace fs = std::filesystem;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return fs::path(xdg) / "runner" / what;
  if (const char* home = std::getenv("HOME"); home && *home)
    return fs::path(home) / ".cache" / "runner" / what;
  return fs::temp_directory_path() /
         ("runner-" + std::string(what) + "-" + std::to_string(::getuid()));
}

}  // namespace runner
