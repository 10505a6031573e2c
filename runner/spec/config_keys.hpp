#pragma once
// The keys of a config besides the axes, and the bounds of its numbers: read by the config reader
// (runner/spec/config.cpp) and described by the JSON Schema generator
// (runner/spec/config_schema.cpp), so that configs/schema.json cannot drift from what the runner
// accepts.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace runner {

// A section of the config: the top level ("") or one of its mappings.
inline constexpr std::string_view kRepeatSection = "repeat";
inline constexpr std::string_view kVerifySection = "verify";
inline constexpr std::string_view kSlurmSection = "slurm";

// An experiment name becomes a folder name (results/<experiment>/...) and part of Slurm job names:
// well below a file system's 255 bytes, with room for what is appended to it. Letters, digits,
// '-', '_' and '.', not starting with '.'.
inline constexpr std::size_t kMaxExperimentName = 128;
inline constexpr std::string_view kExperimentNamePattern = "^[A-Za-z0-9_-][A-Za-z0-9._-]*$";

struct IntegerKey {
  std::string_view section, name;
  std::int64_t lo, hi;
};

struct NumberKey {
  std::string_view section, name;
  double lo, hi;
};

// Every key of the section (the top level: besides the axes), in the order of the docs.
const std::vector<std::string>& section_keys(std::string_view section);

// The integer and the real-number keys, with their bounds (inclusive); nullptr for another key.
const IntegerKey* integer_key(std::string_view section, std::string_view name);
const NumberKey* number_key(std::string_view section, std::string_view name);

}  // namespace runner
