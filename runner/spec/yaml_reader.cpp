#include "runner/spec/yaml_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>

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

bool YamlReader::quoted(const YAML::Node& n) {
  // yaml-cpp tags a quoted scalar "!" and a plain one "?" (not yet resolved to a type); `!!str 8`
  // is text as much as "8" is.
  return n.IsScalar() && (n.Tag() == "!" || n.Tag() == "tag:yaml.org,2002:str");
}

namespace {

// Integers a double holds exactly: beyond them `1e17` is no longer the integer it looks like.
constexpr double kExactDoubleIntegers = 9007199254740992.0;  // 2^53

// YAML 1.2's hexadecimal integer, 0x followed by hex digits (no sign): its value, or nullopt
// when `text` is not one. Out of range throws std::out_of_range.
std::optional<std::int64_t> hexadecimal(std::string_view text) {
  if (text.size() < 3 || text[0] != '0' || text[1] != 'x') return std::nullopt;
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data() + 2, text.data() + text.size(), v, 16);
  if (ptr != text.data() + text.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) throw std::out_of_range("hexadecimal");
  if (ec != std::errc()) return std::nullopt;
  return v;
}

}  // namespace

std::string YamlReader::name_scalar(const YAML::Node& n, std::string_view what) const {
  const std::string s = scalar(n, what);
  if (quoted(n)) return s;
  const auto& words = boolean_words();
  if (std::find(words.begin(), words.end(), s) != words.end())
    fail(n, fmt::format("{} '{}' is a boolean in YAML, not a name: quote it (\"{}\")", what, s, s));
  double d = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec == std::errc() && ptr == s.data() + s.size() && d != std::trunc(d))
    fail(n, fmt::format("{} '{}' is a number in YAML, not a name: quote it (\"{}\")", what, s, s));
  return s;
}

std::int64_t YamlReader::integer(const YAML::Node& n, std::string_view what) const {
  const std::string s = scalar(n, what);
  if (quoted(n))
    fail(n, fmt::format("{} must be an integer, got the text \"{}\" (write numbers without quotes)",
                        what, s));
  // YAML allows an explicit '+'; from_chars does not.
  std::string_view text = s;
  if (text.starts_with('+') && text.size() > 1 && text[1] != '-' && text[1] != '+')
    text.remove_prefix(1);
  // YAML 1.1 reads 010 as octal 8, YAML 1.2 as 10: a config must not mean either silently.
  if (const std::string_view digits = text.substr(text.starts_with('-') ? 1 : 0);
      digits.size() > 1 && digits[0] == '0' &&
      digits.find_first_not_of("0123456789") == std::string_view::npos)
    fail(n, fmt::format("{} '{}' has a leading zero (YAML 1.1 reads it as octal, YAML 1.2 as "
                        "decimal): write it without the zero",
                        what, s));
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && ptr == text.data() + text.size()) return v;
  if (ec == std::errc::result_out_of_range && ptr == text.data() + text.size())
    fail(n, fmt::format("{} '{}' is out of range", what, s));
  try {
    if (const auto hex = hexadecimal(text); hex && text == s) return *hex;
  } catch (const std::out_of_range&) {
    fail(n, fmt::format("{} '{}' is out of range", what, s));
  }
  double d = 0;
  const auto [dptr, dec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (dec == std::errc() && dptr == text.data() + text.size() && std::isfinite(d) &&
      d == std::trunc(d)) {
    if (std::fabs(d) > kExactDoubleIntegers)
      fail(n, fmt::format("{} '{}' is out of range (write large integers without a fraction)", what,
                          s));
    return static_cast<std::int64_t>(d);
  }
  fail(n, fmt::format("{} must be an integer, got '{}'", what, s));
}

std::int64_t YamlReader::integer_in(const YAML::Node& n, std::string_view what, std::int64_t lo,
                                    std::int64_t hi) const {
  const std::int64_t v = integer(n, what);
  if (v < lo || v > hi) fail(n, fmt::format("{} must be in [{}, {}], got {}", what, lo, hi, v));
  return v;
}

double YamlReader::number(const YAML::Node& n, std::string_view what, double lo, double hi) const {
  const std::string s = scalar(n, what);
  if (quoted(n))
    fail(n, fmt::format("{} must be a number, got the text \"{}\" (write numbers without quotes)",
                        what, s));
  std::string_view text = s;
  if (text.starts_with('+') && text.size() > 1 && text[1] != '-' && text[1] != '+')
    text.remove_prefix(1);
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  // Beyond a double's range, either way, the same for every key: 1e-400 (which underflows) and
  // 1e-320 (subnormal, which did not) are both too small to mean anything here.
  if (ptr == text.data() + text.size() &&
      (ec == std::errc::result_out_of_range ||
       (ec == std::errc() && v != 0 && std::fabs(v) < std::numeric_limits<double>::min()))) {
    const double nearest = std::strtod(std::string(text).c_str(), nullptr);
    fail(n, std::isinf(nearest)
                ? fmt::format("{} '{}' is out of range (above {:g})", what, s,
                              std::numeric_limits<double>::max())
                : fmt::format("{} '{}' is too small to be a number here (below {:g}, the "
                              "smallest normal double): write 0 or a larger value",
                              what, s, std::numeric_limits<double>::min()));
  }
  std::optional<std::int64_t> hex;
  try {
    hex = text == s ? hexadecimal(text) : std::nullopt;
  } catch (const std::out_of_range&) {
  }
  if (hex)
    v = static_cast<double>(*hex);
  else if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v))
    fail(n, fmt::format("{} must be a number, got '{}'", what, s));
  if (v < lo || v > hi) fail(n, fmt::format("{} must be in [{}, {}], got {}", what, lo, hi, s));
  return v;
}

const std::vector<std::string>& YamlReader::boolean_words() {
  static const std::vector<std::string> words = {"true", "True", "TRUE", "yes",   "Yes",   "YES",
                                                 "on",   "On",   "ON",   "false", "False", "FALSE",
                                                 "no",   "No",   "NO",   "off",   "Off",   "OFF"};
  return words;
}

bool YamlReader::boolean(const YAML::Node& n, std::string_view what) const {
  const std::string s = scalar(n, what);
  const auto& words = boolean_words();
  const auto at = std::find(words.begin(), words.end(), s);
  if (at == words.end()) fail(n, fmt::format("{} must be true or false, got '{}'", what, s));
  return at < words.begin() + 9;  // the first nine mean true
}

}  // namespace runner
