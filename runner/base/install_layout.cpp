#include "runner/base/install_layout.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "runner/base/errors.hpp"

namespace runner::install {

namespace {

namespace fs = std::filesystem;

enum class Found { beside_binary, environment, none };

struct Prefix {
  fs::path path;
  Found how = Found::none;
};

Prefix find_prefix() {
  std::error_code ec;
  const fs::path exe = executable();
  if (!exe.empty()) {
    const fs::path above_bin = exe.parent_path().parent_path();
    if (fs::is_directory(above_bin / "share" / "runner", ec))
      return {above_bin, Found::beside_binary};
  }
  if (const char* env = std::getenv("RUNNER_PREFIX"); env && *env)
    return {fs::path(env), Found::environment};
  return {};
}

const Prefix& the_prefix() {
  static const Prefix prefix = find_prefix();
  return prefix;
}

}  // namespace

fs::path executable() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe;
}

fs::path prefix() {
  return the_prefix().path;
}

fs::path share_dir() {
  const fs::path p = prefix();
  return p.empty() ? p : p / "share" / "runner";
}

fs::path share_path(std::string_view relative) {
  const Prefix& p = the_prefix();
  if (p.how == Found::none)
    throw UsageError(fmt::format(
        "cannot find the runner's files ({} and the rest of share/runner/): there is no "
        "share/runner/ beside {} and $RUNNER_PREFIX is not set. Install the runner (cmake "
        "--install BUILD --prefix PREFIX) or set RUNNER_PREFIX to its prefix",
        relative, executable().string()));
  const fs::path path = p.path / "share" / "runner" / fs::path(relative);
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw UsageError(fmt::format(
        "the runner's file {} is missing: looked for {} ({}). The installation is incomplete: "
        "install it again",
        relative, path.string(),
        p.how == Found::beside_binary
            ? fmt::format("share/runner/ of the prefix of {}", executable().string())
            : "share/runner/ of $RUNNER_PREFIX"));
  return path;
}

std::string describe_prefix() {
  const Prefix& p = the_prefix();
  switch (p.how) {
    case Found::beside_binary:
      return p.path.string();
    case Found::environment:
      return p.path.string() + " (from $RUNNER_PREFIX)";
    case Found::none:
      break;
  }
  return "none found (no share/runner/ beside the binary, RUNNER_PREFIX unset)";
}

}  // namespace runner::install
