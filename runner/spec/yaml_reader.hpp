#pragma once
// Typed, located reads of YAML nodes: every value that is not what it should be becomes a
// ConfigError at its FILE:LINE:COL. Shared by the config parser and the axis descriptors.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "runner/spec/config_error.hpp"

namespace runner {

// Where a value came from, so that every later check (unknown variant, bad block) can still point
// at FILE:LINE:COL. line and column are 1-based.
struct Location {
  int line = 0, column = 0;
};

class YamlReader {
 public:
  explicit YamlReader(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }

  [[noreturn]] void fail(Location at, const std::string& what) const;
  [[noreturn]] void fail(const YAML::Node& n, const std::string& what) const;
  static Location where(const YAML::Node& n);

  // Iterates a mapping, refusing duplicate keys (yaml-cpp keeps both silently) and keys without
  // a value.
  template <typename Fn>
  void for_each_key(const YAML::Node& map, std::string_view what, Fn&& fn) const {
    if (!map.IsMap()) fail(map, fmt::format("{} must be a mapping (key: value)", what));
    std::set<std::string> seen;
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) fail(kv.first, fmt::format("keys of {} must be names", what));
      const std::string key = kv.first.Scalar();
      if (!seen.insert(key).second)
        fail(kv.first, fmt::format("duplicate key '{}' in {}", key, what));
      // yaml-cpp places an empty value at the next token, often on a later line: point at the key.
      if (kv.second.IsNull()) fail(kv.first, fmt::format("'{}' in {} has no value", key, what));
      fn(key, kv.first, kv.second);
    }
  }

  std::string scalar(const YAML::Node& n, std::string_view what) const;
  // Whether a scalar was written in quotes: "4" is text, 4 a number, for YAML and for the JSON
  // Schema tools that read configs (configs/schema.json), so numbers may not be quoted.
  static bool quoted(const YAML::Node& n);
  // A name (the experiment's): text, or an integer, which YAML tools read as one. An unquoted
  // true/yes/off or 1.5 is refused: the tools that check configs against the schema read a
  // boolean or a fraction there, not a name.
  std::string name_scalar(const YAML::Node& n, std::string_view what) const;
  // An integer as YAML writes one: 42, +42, -42, 0x2A (YAML 1.2's hexadecimal, which editors and
  // so the schema read as 42), and a number whose fraction is zero (2.0, 1.5e3): YAML-to-JSON
  // tools and so the schema see the value 2 in `2.0`, so the runner does too.
  std::int64_t integer(const YAML::Node& n, std::string_view what) const;
  std::int64_t integer_in(const YAML::Node& n, std::string_view what, std::int64_t lo,
                          std::int64_t hi) const;
  double number(const YAML::Node& n, std::string_view what, double lo, double hi) const;
  // YAML 1.2's true/false (any of its three casings) and YAML 1.1's yes/no/on/off, quoted or not:
  // editors read configs as YAML 1.2 (yes is a word there), Python's yaml as 1.1 (yes is true).
  bool boolean(const YAML::Node& n, std::string_view what) const;
  static const std::vector<std::string>& boolean_words();

 private:
  std::string file_;
};

}  // namespace runner
