#pragma once
// Running part of a config from the command line, as nvbench's `-a axis=...`, Google Benchmark's
// --benchmark_filter and ReFrame's -n/-S let users do without editing the file:
//
//   --only AXIS=VALUES  keep the points whose AXIS is one of VALUES (repeatable: every --only
//                       holds); VALUES as a sweep writes them: 256, [256, 512], 1,2,4,
//                       {pow2: [128, 1024]}, [omp_naive, openblas]. A point without the axis
//                       (a CUDA point under --only threads=2) is left out. The baseline and the
//                       ceiling points of every problem kept stay, so that speedup and % of copy
//                       are still measured.
//   --set AXIS=VALUE    the axis takes this one value everywhere: each sweep that lists it, and
//                       the top-level default (which the sweeps that do not list it take).
//                       Exclude entries that can no longer match are dropped.
//
// The selection is part of the run: the manifest records it, `--resume` continues with it (and
// refuses another), `runner submit` passes it to its shards.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/api/point.hpp"
#include "runner/api/registry.hpp"
#include "runner/spec/config.hpp"

namespace runner {

struct PointSelection {
  std::vector<std::string> only, set;  // as given: "size=[256,512]", "threads=4"

  bool empty() const { return only.empty() && set.empty(); }
  // {"only": [...], "set": [...]}: the manifest's "selection".
  nlohmann::json to_json() const;
  // From a manifest's "selection"; empty for null or a document without one.
  static PointSelection from_json(const nlohmann::json& j);
  // The words that give it on a command line, each option and its value: {"--only", "size=256"}.
  std::vector<std::string> arguments() const;
  friend bool operator==(const PointSelection&, const PointSelection&) = default;
};

// The config's points under a selection: --set applied to the spec, the matrix expanded, --only
// applied to it. Throws UsageError naming the option for an unknown axis or a value the axis does
// not take, and when nothing is left to run; ConfigError for the config itself.
std::vector<Point> selected_points(ExperimentSpec spec, const PointSelection& selection,
                                   const Registry& registry);

}  // namespace runner
