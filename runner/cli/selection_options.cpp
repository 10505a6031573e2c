// --only and --set, the point selection of `runner CONFIG` and `runner submit`
// (runner/spec/point_filter.hpp): one definition for both, so they read alike in --help, the man
// page and the completions.
#include <CLI/CLI.hpp>

#include "runner/cli/commands.hpp"

namespace runner::cli {

void add_selection_options(CLI::App& command, PointSelection& selection) {
  // One value per occurrence (allow_extra_args false), so that `--only size=256 CONFIG` leaves
  // CONFIG to the positional; repeated, they add up.
  command
      .add_option("--only", selection.only,
                  "Run only the points whose AXIS is one of VALUES (AXIS=VALUES, as a sweep "
                  "writes them: size=256, size=[256,512], threads=1,2, size={pow2: [128, 1024]}); "
                  "repeatable, every one holds; baselines stay; recorded in the manifest")
      ->allow_extra_args(false);
  command
      .add_option("--set", selection.set,
                  "Give AXIS this one value everywhere (AXIS=VALUE, e.g. threads=4, dtype=double); "
                  "repeatable; recorded in the manifest")
      ->allow_extra_args(false);
}

}  // namespace runner::cli
