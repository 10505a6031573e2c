#pragma once
#include <vector>

#include "runner/api/point.hpp"
#include "runner/api/registry.hpp"
#include "runner/spec/config.hpp"
#include "runner/spec/config_error.hpp"

namespace runner {

// Expands a config into its points: each sweep is the Cartesian product of its axes, projected on
// the axes each variant uses (so no duplicates), the experiment is the union of the sweeps less the
// `exclude` entries, plus one baseline point per problem. Points come back in execution order:
// grouped by problem (so inputs and reference are built once), baseline and ceiling first in each
// group, then the points at one thread (so speedup, pct_of_copy and scaling_efficiency are known
// when a record is written).
// Throws ConfigError (with the location of the offending value) for names the registry lacks,
// axes no variant of a sweep uses, dtypes no variant supports, sizes whose bytes overflow.
std::vector<Point> expand(const ExperimentSpec& spec, const Registry& registry);

// Rough seconds one point costs (work and bytes over nominal rates, times its samples), used only
// to balance shards.
double estimated_cost(const Point& point, const Registry& registry);

// The `index`-th of `count` deterministic slices of `points` (0-based), balanced by estimated cost
// (largest first, each to the lightest shard). Keeps execution order within the slice.
std::vector<Point> shard(const std::vector<Point>& points, int index, int count,
                         const Registry& registry);

// Which shard each point goes to (same rule as shard()); index i of the result is points[i]'s
// shard.
std::vector<int> shard_assignment(const std::vector<Point>& points, int count,
                                  const Registry& registry);

}  // namespace runner
