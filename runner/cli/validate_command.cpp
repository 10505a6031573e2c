// `runner validate CONFIG`: reads and expands a config, prints its number of points.
#include <fmt/format.h>

#include "runner/api/gpu/runtime_name.hpp"
#include "runner/api/registry.hpp"
#include "runner/cli/commands.hpp"
#include "runner/plugin/plugins.hpp"
#include "runner/spec/config.hpp"
#include "runner/spec/matrix.hpp"

namespace runner::cli {

int validate_command(const std::string& config) {
  const ExperimentSpec spec = load_config(config);
  plugin::load_plugins(spec, Registry::instance());
  const std::vector<Point> points = expand(spec, Registry::instance());
  std::size_t gpu = 0;
  for (const auto& p : points) {
    const auto* v = Registry::instance().find(p.kernel)->find_variant(p.variant);
    if (is_gpu(v->backend)) ++gpu;
  }
  fmt::print("{}: ok, experiment '{}', {} points ({} {}, {} CPU)\n", config, spec.experiment,
             points.size(), gpu, gpu::kRuntimeName, points.size() - gpu);
  return 0;
}

}  // namespace runner::cli
