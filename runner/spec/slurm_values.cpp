#include "runner/spec/slurm_values.hpp"

#include <regex>

#include <cctype>

#include <fmt/format.h>

namespace runner {

namespace {

bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// A host name character: what node names hold on real clusters. Brackets, commas and whitespace
// are the hostlist's own syntax.
bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

// "01-03,7" inside brackets: numbers and low-high ranges with low <= high.
std::optional<std::string> range_list_problem(std::string_view list) {
  if (list.empty()) return "empty brackets []";
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view item = list.substr(start, comma - start);
    const std::size_t dash = item.find('-');
    const std::string_view low = item.substr(0, dash);
    const std::string_view high = dash == std::string_view::npos ? low : item.substr(dash + 1);
    const auto all_digits = [](std::string_view s) {
      if (s.empty() || s.size() > 9) return false;
      for (char c : s)
        if (!is_digit(c)) return false;
      return true;
    };
    if (!all_digits(low) || !all_digits(high))
      return fmt::format("'[{}]': a range is N or N-M with digits only", list);
    if (std::stol(std::string(high)) < std::stol(std::string(low)))
      return fmt::format("'[{}]': the range {} goes down", list, item);
    start = comma + 1;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> memory_size_problem(std::string_view value) {
  std::size_t digits = 0;
  while (digits < value.size() && is_digit(value[digits])) ++digits;
  std::string_view unit = value.substr(digits);
  // Slurm 22.05 reads 16GB as 16G (measured with sbatch --test-only), but not 16B or 16GiB.
  if (unit.size() == 2 && (unit[1] == 'B' || unit[1] == 'b')) unit.remove_suffix(1);
  // 18 digits of megabytes are far beyond any node and still fit Slurm's 64-bit count.
  const bool ok =
      digits > 0 && digits <= 18 &&
      (unit.empty() ||
       (unit.size() == 1 && std::string_view("KMGTkmgt").find(unit[0]) != std::string_view::npos));
  if (ok) return std::nullopt;
  return fmt::format(
      "'{}' is not a memory size: a whole number of megabytes, or with a unit K, M, G or T "
      "(16G, 4000M, 0 for all of the node's memory)",
      value);
}

std::optional<std::string> time_limit_problem(std::string_view value) {
  static const std::regex pattern{std::string(kTimeLimitPattern)};
  if (std::regex_match(value.begin(), value.end(), pattern)) return std::nullopt;
  return fmt::format(
      "'{}' is not a Slurm time limit: minutes (30), hours:minutes:seconds (01:30:00), "
      "days-hours:minutes:seconds (2-00:00:00) or UNLIMITED",
      value);
}

std::optional<std::string> hostlist_problem(std::string_view value) {
  const auto bad = [&](const std::string& why) {
    return fmt::format(
        "'{}' is not a Slurm hostlist ({}): node names and ranges separated by commas, e.g. "
        "node[01-03],gpu7",
        value, why);
  };
  if (value.empty()) return bad("empty");
  bool in_brackets = false;
  std::size_t item_chars = 0, bracket_start = 0;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    if (in_brackets) {
      if (c == ']') {
        if (auto why = range_list_problem(value.substr(bracket_start, i - bracket_start)))
          return bad(*why);
        in_brackets = false;
        ++item_chars;
      } else if (!(is_digit(c) || c == ',' || c == '-')) {
        return bad(fmt::format("'{}' inside brackets", c));
      }
    } else if (c == '[') {
      in_brackets = true;
      bracket_start = i + 1;
    } else if (c == ',') {
      if (item_chars == 0) return bad("an empty name");
      item_chars = 0;
    } else if (is_name_char(c)) {
      ++item_chars;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      return bad("whitespace");
    } else {
      return bad(fmt::format("'{}'", c));
    }
  }
  if (in_brackets) return bad("a '[' without its ']'");
  if (item_chars == 0) return bad("an empty name");
  return std::nullopt;
}

std::optional<std::string> setup_line_problem(std::string_view line) {
  if (line.find('\0') != std::string_view::npos)
    return std::string("holds a NUL byte: a setup line is one line of shell text");
  if (line.find_first_of("\r\n") != std::string_view::npos)
    return std::string(
        "holds a line break: give each command as its own entry of the list (a YAML block "
        "scalar | or > adds line breaks)");
  return std::nullopt;
}

}  // namespace runner
