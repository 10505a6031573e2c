#pragma once
// A choice of a variant pinned by an environment variable. Variants that time their ways to run a
// point at set-up (tilings, loads, forms, tile shapes) let a variable pin one: for A/B studies, and
// for runs that must launch the same code on every machine (RUNNER_DMMA_TILES=64x64,
// RUNNER_CONV2D_FORM=grid, ...; docs/measurement.md lists them).
#include <cstddef>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "runner/api/errors.hpp"

namespace runner {

// The index in `names` of the value of the variable `env`, or nullopt where it is unset or empty.
// Any other value makes the point invalid, with a message that names the variable, its value, the
// values it takes and what unset means ("RUNNER_DMMA_TILES is '64x32': 128x128 or 64x64 (unset:
// timed at set-up where C has few tiles)"). Read at every point, whatever its size: a mistyped pin
// fails the first point, not only the sizes where it would have mattered.
template <class Names = std::initializer_list<std::string_view>>
std::optional<std::size_t> pinned_choice(const char* env, const Names& names,
                                         std::string_view unset_means) {
  const char* value = std::getenv(env);
  if (!value || !*value) return std::nullopt;
  std::string accepted;
  std::size_t i = 0;
  for (const std::string_view name : names) {
    if (name == value) return i;
    accepted += (i == 0 ? "" : i + 1 == std::size(names) ? " or " : ", ") + std::string(name);
    ++i;
  }
  throw PointInvalid(std::string(env) + " is '" + value + "': " + accepted +
                     " (unset: " + std::string(unset_means) + ")");
}

}  // namespace runner
