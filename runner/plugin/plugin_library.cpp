#include "runner/plugin/plugin_library.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runner/base/durable_file.hpp"
#include "runner/plugin/plugin_toolchain.hpp"

namespace runner::plugin {

namespace {

// A plugin whose static initialisers run longer than this while loading is taken as hung.
constexpr int kProbeTimeoutSeconds = 60;

std::string name_of(const BuiltPlugin& built) {
  return built.source.filename().string();
}

std::string signal_text(int sig) {
  const char* what = ::strsignal(sig);
  return fmt::format("killed by signal {} ({})", sig, what ? what : "?");
}

// Loads the library in a child process and returns what the child reported: "stamp:ABI",
// "nostamp" or "dlerror:MESSAGE". PluginLoadError when it crashed or hung.
std::string probe(const BuiltPlugin& built) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw Refused(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw Refused(fmt::format("cannot start a process to load the plugin: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    void* handle = ::dlopen(built.library.c_str(), RTLD_NOW | RTLD_LOCAL);
    std::string report;
    if (!handle) {
      const char* err = ::dlerror();
      report = fmt::format("dlerror:{}", err ? err : "unknown error");
    } else if (const auto* stamp = static_cast<const char*>(::dlsym(handle, "runner_plugin_abi"))) {
      report = fmt::format("stamp:{}", stamp);
    } else {
      report = "nostamp";
    }
    write_all(fds[1], report);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string report;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kProbeTimeoutSeconds);
  bool hung = false;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      hung = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    char chunk[4096];
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n > 0) {
      report.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // EOF: the child is done
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (hung)
    throw PluginLoadError(fmt::format(
        "plugin {}: loading it did not finish within {} s (its static initialisers hang?)",
        name_of(built), kProbeTimeoutSeconds));
  if (WIFSIGNALED(status))
    throw PluginLoadError(fmt::format("plugin {}: it crashed while loading ({})", name_of(built),
                                      signal_text(WTERMSIG(status))));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || report.empty())
    throw PluginLoadError(fmt::format(
        "plugin {}: loading it ended the process (exit {}) before it could be checked",
        name_of(built), WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  return report;
}

}  // namespace

std::string plugin_label(const BuiltPlugin& built) {
  return fmt::format("{}@{}", name_of(built), built.content_hash.substr(0, 8));
}

LoadedPlugin load_plugin(const BuiltPlugin& built, Registry& registry) {
  const std::string name = name_of(built);
  const std::string report = probe(built);
  if (report.starts_with("dlerror:"))
    throw PluginLoadError(fmt::format("plugin {}: it cannot be loaded: {}", name, report.substr(8)));
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
    throw PluginLoadError(fmt::format("plugin {}: {}", name,
                                      fmt::join(loaded.registered.problems, "; ")));
  if (loaded.registered.kernels.empty() && loaded.registered.variants.empty())
    throw PluginLoadError(fmt::format(
        "plugin {}: it registers no kernel and no variant. A variant file ends with its factory "
        "(RUNNER_FACTORY) and its line (RUNNER_CPU_VARIANT or RUNNER_CUDA_VARIANT); see "
        "docs/own-kernel.md",
        name));
  return loaded;
}

}  // namespace runner::plugin
