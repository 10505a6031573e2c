#pragma once
// Ranges of integer axis values: `{pow2: [128, 8192]}` is 128, 256, ..., 8192 and
// `{range: [1024, 9216, 1024]}` is 1024, 2048, ..., 9216 (start, stop inclusive, step), so that a
// config need not spell out doublings. A range stands for the list of its integers wherever an
// axis takes integers (size, threads, kernel_size, grid), alone or as an item of a list; each
// integer is then read exactly as if it had been written out (bounds, odd kernel sizes).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/spec/yaml_reader.hpp"

namespace runner {

// The integers an axis takes: [lo, hi], odd ones only where `odd` says so (kernel_size).
struct IntegerDomain {
  std::int64_t lo = 0, hi = 0;
  bool odd = false;

  // Why `v` is not a value of the axis `name` ("threads must be in [1, 4096], got 0"); nullopt
  // when it is one.
  std::optional<std::string> problem(std::string_view name, std::int64_t v) const;
  // The same rule as JSON Schema (configs/schema.json).
  nlohmann::ordered_json json_schema() const;
};

// A range expands to at most this many values: enough for any sweep, and a typo such as a
// missing step (`{range: [1, 1000000000]}`) is refused before it allocates anything.
constexpr std::size_t kMaxRangeValues = 100000;

// The two kinds of range, by their key.
inline constexpr std::string_view kPow2Key = "pow2";
inline constexpr std::string_view kRangeKey = "range";

// Whether a mapping given as an axis value is meant as a range: it has a pow2 or range key, or a
// key that is not one of `value_keys` (the keys of a mapping that is one value: size's m, n, k)
// holds a list ({pow3: [1, 8]} is a misspelt range, not a size dimension).
bool is_range(const YAML::Node& n, const std::vector<std::string_view>& value_keys);

// The integers of a range, each checked against `domain`; a ConfigError at the offending bound,
// step or key otherwise (`axis` names the axis in messages).
std::vector<std::int64_t> expand_range(const YamlReader& read, const YAML::Node& n,
                                       std::string_view axis, const IntegerDomain& domain);

// JSON Schema of a range of `domain`: what the schema can check of the rules above (the shape,
// the keys, powers of two, the bounds; not that start <= stop, nor the count).
nlohmann::ordered_json range_json_schema(const IntegerDomain& domain);

}  // namespace runner
