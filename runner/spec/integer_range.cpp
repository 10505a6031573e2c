#include "runner/spec/integer_range.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "runner/spec/did_you_mean.hpp"

namespace runner {

using Json = nlohmann::ordered_json;

namespace {

bool is_power_of_two(std::int64_t v) {
  return v > 0 && (v & (v - 1)) == 0;
}

std::vector<std::int64_t> pow2_values(const YamlReader& read, const YAML::Node& list,
                                      std::string_view axis, const IntegerDomain& domain) {
  if (!list.IsSequence() || list.size() != 2)
    read.fail(list, fmt::format("pow2 of {} takes [lo, hi], two powers of two, e.g. "
                                "{{pow2: [128, 8192]}}",
                                axis));
  std::int64_t bounds[2];
  for (std::size_t i = 0; i < 2; ++i) {
    bounds[i] = read.integer(list[i], fmt::format("{} pow2 bound", axis));
    if (!is_power_of_two(bounds[i]))
      read.fail(list[i],
                fmt::format("pow2 bounds of {} must be powers of two, got {}", axis, bounds[i]));
    if (const auto why = domain.problem(axis, bounds[i])) read.fail(list[i], *why);
  }
  if (bounds[0] > bounds[1])
    read.fail(list, fmt::format("pow2 of {} goes down: {} is above {} (write [lo, hi])", axis,
                                bounds[0], bounds[1]));
  std::vector<std::int64_t> out;
  for (std::int64_t v = bounds[0];; v *= 2) {
    out.push_back(v);
    if (v == bounds[1]) break;  // stop before doubling: hi may be 2^62
  }
  return out;
}

std::vector<std::int64_t> range_values(const YamlReader& read, const YAML::Node& list,
                                       std::string_view axis, const IntegerDomain& domain) {
  if (!list.IsSequence() || list.size() < 2 || list.size() > 3)
    read.fail(list, fmt::format("range of {} takes [start, stop] or [start, stop, step] (stop "
                                "included), e.g. {{range: [1024, 9216, 1024]}}",
                                axis));
  const std::int64_t start = read.integer(list[0], fmt::format("{} range start", axis));
  const std::int64_t stop = read.integer(list[1], fmt::format("{} range stop", axis));
  const std::int64_t step =
      list.size() == 3 ? read.integer(list[2], fmt::format("{} range step", axis)) : 1;
  if (const auto why = domain.problem(axis, start)) read.fail(list[0], *why);
  if (const auto why = domain.problem(axis, stop)) read.fail(list[1], *why);
  if (step <= 0)
    read.fail(list[2], fmt::format("range step of {} must be at least 1, got {}", axis, step));
  if (start > stop)
    read.fail(list,
              fmt::format("range of {} goes down: start {} is above stop {}", axis, start, stop));
  // Both ends are values of the axis (bounded by its domain, at most 2^40 today), so neither the
  // difference nor the count overflows.
  if ((stop - start) % step != 0)
    read.fail(list[1], fmt::format("range of {} never reaches its stop {}: {} + a multiple of {} "
                                   "(the last value would be {})",
                                   axis, stop, start, step, stop - (stop - start) % step));
  const std::int64_t count = (stop - start) / step + 1;
  if (count > static_cast<std::int64_t>(kMaxRangeValues))
    read.fail(list, fmt::format("range of {} has {} values; at most {} (a missing step?)", axis,
                                count, kMaxRangeValues));
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    // start + i·step never passes stop, so it cannot overflow whatever the domain.
    const std::int64_t v = start + i * step;
    // Inner values meet the axis' rule too (kernel_size: odd); the ends were checked above.
    if (const auto why = domain.problem(axis, v))
      read.fail(list, fmt::format("{} (a value of this range)", *why));
    out.push_back(v);
  }
  return out;
}

}  // namespace

std::optional<std::string> IntegerDomain::problem(std::string_view name, std::int64_t v) const {
  if (v < lo || v > hi) return fmt::format("{} must be in [{}, {}], got {}", name, lo, hi, v);
  if (odd && v % 2 == 0) return fmt::format("{} must be odd, got {}", name, v);
  return std::nullopt;
}

Json IntegerDomain::json_schema() const {
  Json s = {{"type", "integer"}, {"minimum", lo}, {"maximum", hi}};
  if (odd) s["not"] = {{"type", "integer"}, {"multipleOf", 2}};
  return s;
}

bool is_range(const YAML::Node& n, const std::vector<std::string_view>& value_keys) {
  if (!n.IsMap()) return false;
  for (const auto& kv : n) {
    if (!kv.first.IsScalar()) continue;
    const std::string& key = kv.first.Scalar();
    if (key == kPow2Key || key == kRangeKey) return true;
    if (kv.second.IsSequence() &&
        std::find(value_keys.begin(), value_keys.end(), key) == value_keys.end())
      return true;
  }
  return false;
}

std::vector<std::int64_t> expand_range(const YamlReader& read, const YAML::Node& n,
                                       std::string_view axis, const IntegerDomain& domain) {
  std::optional<std::string> kind;
  std::vector<std::int64_t> values;
  read.for_each_key(
      n, fmt::format("a range of {}", axis),
      [&](const std::string& key, const YAML::Node& k, const YAML::Node& v) {
        if (key != kPow2Key && key != kRangeKey) {
          const std::string hint =
              closest_match(key, {std::string(kPow2Key), std::string(kRangeKey)});
          read.fail(k, fmt::format("unknown range '{}' for {}{}: a range is "
                                   "{{pow2: [lo, hi]}} or {{range: [start, stop, "
                                   "step]}}",
                                   key, axis,
                                   hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
        }
        if (kind)
          read.fail(k, fmt::format("a range of {} is either pow2 or range, not both: "
                                   "write two items of a list",
                                   axis));
        kind = key;
        values = key == kPow2Key ? pow2_values(read, v, axis, domain)
                                 : range_values(read, v, axis, domain);
      });
  if (!kind) read.fail(n, fmt::format("a range of {} is empty", axis));
  return values;
}

Json range_json_schema(const IntegerDomain& domain) {
  Json powers = Json::array();
  for (int bit = 0; bit < 63 && (std::int64_t{1} << bit) <= domain.hi; ++bit)
    if (!domain.problem("", std::int64_t{1} << bit)) powers.push_back(std::int64_t{1} << bit);
  const Json bound = domain.json_schema();
  const Json step = {{"type", "integer"}, {"minimum", 1}};
  return {
      {"description",
       "A range of values: {pow2: [lo, hi]} (powers of two from lo to hi) or {range: [start, "
       "stop, step]} (stop included, step 1 if left out). The runner also checks that the range "
       "goes up, reaches its stop and has at most 100000 values."},
      {"type", "object"},
      {"minProperties", 1},
      {"maxProperties", 1},
      {"additionalProperties", false},
      {"properties",
       {{kPow2Key,
         {{"type", "array"},
          {"minItems", 2},
          {"maxItems", 2},
          {"items", {{"type", "integer"}, {"enum", powers}}}}},
        {kRangeKey,
         {{"type", "array"},
          // Two exact tuples rather than one of 2 to 3 items: ajv's strict mode wants a tuple's
          // length pinned, and `items: false` would make a client that predates prefixItems
          // (draft 7) refuse every range.
          {"oneOf",
           {{{"type", "array"},
             {"minItems", 2},
             {"maxItems", 2},
             {"prefixItems", Json::array({bound, bound})}},
            {{"type", "array"},
             {"minItems", 3},
             {"maxItems", 3},
             {"prefixItems", Json::array({bound, bound, step})}}}}}}}}};
}

}  // namespace runner
