#include "runner/spec/yaml_reader.hpp"

#include <charconv>
#include <cmath>

namespace runner {

void YamlReader::fail(Location at, const std::string& what) const {
  throw ConfigError(file_, at.line, at.column, what);
}

void YamlReader::fail(const YAML::Node& n, const std::string& what) const {
  fail(where(n), what);
}

Location YamlReader::where(const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  if (m.is_null()) return {};
  return {m.line + 1, m.column + 1};
}

std::string YamlReader::scalar(const YAML::Node& n, std::string_view what) const {
  if (!n.IsScalar()) fail(n, fmt::format("{} must be a single value", what));
  return n.Scalar();
}

std::int64_t YamlReader::integer(const YAML::Node& n, std::string_view what) const {
  const std::string s = scalar(n, what);
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range)
    fail(n, fmt::format("{} '{}' is out of range", what, s));
  if (ec != std::errc() || ptr != s.data() + s.size())
    fail(n, fmt::format("{} must be an integer, got '{}'", what, s));
  return v;
}

std::int64_t YamlReader::integer_in(const YAML::Node& n, std::string_view what, std::int64_t lo,
                                    std::int64_t hi) const {
  const std::int64_t v = integer(n, what);
  if (v < lo || v > hi) fail(n, fmt::format("{} must be in [{}, {}], got {}", what, lo, hi, v));
  return v;
}

double YamlReader::number(const YAML::Node& n, std::string_view what, double lo, double hi) const {
  const std::string s = scalar(n, what);
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v))
    fail(n, fmt::format("{} must be a number, got '{}'", what, s));
  if (v < lo || v > hi) fail(n, fmt::format("{} must be in [{}, {}], got {}", what, lo, hi, s));
  return v;
}

bool YamlReader::boolean(const YAML::Node& n, std::string_view what) const {
  const std::string s = scalar(n, what);
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  fail(n, fmt::format("{} must be true or false, got '{}'", what, s));
}

}  // namespace runner
