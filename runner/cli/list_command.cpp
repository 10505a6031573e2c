// `runner list`: every kernel and variant of this binary, its axes, and whether it can run here.
#include <set>

#include <fmt/format.h>

#include "runner/api/gpu/runtime_name.hpp"
#include "runner/api/gpu_info.hpp"
#include "runner/api/registry.hpp"
#include "runner/cli/commands.hpp"

namespace runner::cli {

int list_command(const std::vector<std::string>& plugin_files) {
  // With --plugin: what those plugins register, and nothing else.
  std::set<std::string> only;
  for (const auto& loaded : load_plugin_files(plugin_files)) {
    for (const auto& k : loaded.registered.kernels) only.insert(k + "/*");
    for (const auto& v : loaded.registered.variants) only.insert(v);
  }
  const bool have_gpu = gpu_info().present;
  fmt::print("{:<10} {:<12} {:<5} {:<10} {:<28} {}\n", "kernel", "variant", "on", "available",
             "axes", "description");
  for (const auto& k : Registry::instance().kernels()) {
    for (const auto& v : k.variants) {
      if (!plugin_files.empty() && !only.count(k.name + "/*") && !only.count(k.name + "/" + v.name))
        continue;
      std::string axes;
      for (Axis a : k.axes) axes += std::string(axis_name(a)) + " ";
      for (Axis a : v.axes) axes += std::string(axis_name(a)) + " ";
      std::string available = "yes";
      if (!v.factory)
        available = "no (" + v.unavailable_reason + ")";
      else if (is_gpu(v.backend) && !have_gpu)
        available = fmt::format("no (no {} device)", gpu::kRuntimeName);
      fmt::print("{:<10} {:<12} {:<5} {:<10} {:<28} {}{}\n", k.name, v.name,
                 backend_name(v.backend), available, axes, v.description,
                 v.plugin.empty() ? "" : fmt::format(" [plugin {}]", v.plugin));
    }
  }
  if (!have_gpu)
    fmt::print("\nGPU: {}\n", gpu_info().absent_reason);
  else
    fmt::print("\nGPU: {}\n", gpu_info().name);
  return 0;
}

}  // namespace runner::cli
