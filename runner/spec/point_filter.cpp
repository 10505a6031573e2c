#include "runner/spec/point_filter.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runner/base/errors.hpp"
#include "runner/spec/did_you_mean.hpp"
#include "runner/spec/matrix.hpp"

namespace runner {

namespace {

struct AxisValues {
  Axis axis;
  std::vector<LocatedValue> values;
};

// "AXIS=VALUES" of `option` (--only, --set): the axis and its values, read as a sweep reads them.
AxisValues parse_assignment(const std::string& option, const std::string& text) {
  const auto eq = text.find('=');
  const std::string origin = fmt::format("{} {}", option, text);
  if (eq == std::string::npos || eq == 0)
    throw UsageError(
        fmt::format("{}: expected AXIS=VALUES, e.g. {} size=[256,512]", origin, option));
  const std::string name = text.substr(0, eq);
  std::string values = text.substr(eq + 1);
  const auto axis = parse_axis(name);
  if (!axis) {
    std::vector<std::string> names;
    for (const auto& d : axis_descriptors()) names.emplace_back(d.name);
    const std::string near = closest_match(name, names);
    throw UsageError(fmt::format("{}: no axis '{}'{} (axes: {})", origin, name,
                                 near.empty() ? "" : fmt::format("; did you mean '{}'?", near),
                                 fmt::join(names, ", ")));
  }
  // 1,2,4 as shells and other tools write lists: a YAML list without its brackets.
  if (!values.empty() && values.front() != '[' && values.front() != '{' &&
      values.find(',') != std::string::npos)
    values = "[" + values + "]";
  try {
    return {*axis, parse_axis_values(*axis, values, origin)};
  } catch (const ConfigError& e) {
    throw UsageError(fmt::format("{}: {}", origin, e.what()));
  }
}

bool matches_any(const Point& p, const AxisValues& filter) {
  return std::any_of(filter.values.begin(), filter.values.end(), [&](const LocatedValue& v) {
    return describe(filter.axis).matches(p, v.value);
  });
}

void apply_set(ExperimentSpec& spec, const std::string& text) {
  AxisValues set = parse_assignment("--set", text);
  if (set.values.size() != 1)
    throw UsageError(fmt::format(
        "--set {}: one value (it replaces the axis everywhere); --only selects several", text));
  const LocatedValue& value = set.values.front();
  for (Sweep& sweep : spec.sweeps)
    for (auto& [axis, values] : sweep.axes)
      if (axis == set.axis) values = {value};
  spec.defaults[set.axis] = value;
  // An exclude entry whose values of the axis no longer include the one set matches nothing now.
  std::erase_if(spec.excludes, [&](const Sweep& entry) {
    return std::any_of(entry.axes.begin(), entry.axes.end(), [&](const auto& axis_values) {
      const auto& [axis, values] = axis_values;
      return axis == set.axis &&
             std::none_of(values.begin(), values.end(), [&](const LocatedValue& v) {
               return to_string(v.value) == to_string(value.value);
             });
    });
  });
}

}  // namespace

nlohmann::json PointSelection::to_json() const {
  return {{"only", only}, {"set", set}};
}

PointSelection PointSelection::from_json(const nlohmann::json& j) {
  PointSelection s;
  if (!j.is_object()) return s;
  for (const char* key : {"only", "set"}) {
    auto& list = std::string_view(key) == "only" ? s.only : s.set;
    if (const auto it = j.find(key); it != j.end() && it->is_array())
      for (const auto& item : *it)
        if (item.is_string()) list.push_back(item.get<std::string>());
  }
  return s;
}

std::vector<std::string> PointSelection::arguments() const {
  std::vector<std::string> words;
  for (const auto& o : only) words.insert(words.end(), {"--only", o});
  for (const auto& s : set) words.insert(words.end(), {"--set", s});
  return words;
}

std::vector<Point> selected_points(ExperimentSpec spec, const PointSelection& selection,
                                   const Registry& registry) {
  // Parsed before the config is expanded: a mistyped option costs nothing.
  std::vector<AxisValues> filters;
  for (const auto& text : selection.only) filters.push_back(parse_assignment("--only", text));
  for (const auto& text : selection.set) apply_set(spec, text);
  std::vector<Point> points = expand(spec, registry);
  if (filters.empty()) return points;

  for (std::size_t f = 0; f < filters.size(); ++f)
    if (std::none_of(points.begin(), points.end(),
                     [&](const Point& p) { return matches_any(p, filters[f]); }))
      throw UsageError(
          fmt::format("--only {}: no point of the config has it (the config's "
                      "points: runner {} --dry-run)",
                      selection.only[f], spec.file.string()));
  std::set<std::string> kept_problems;
  std::vector<bool> keep(points.size(), false);
  for (std::size_t i = 0; i < points.size(); ++i) {
    keep[i] = std::all_of(filters.begin(), filters.end(),
                          [&](const AxisValues& f) { return matches_any(points[i], f); });
    if (keep[i]) kept_problems.insert(points[i].problem_key());
  }
  if (kept_problems.empty())
    throw UsageError(
        fmt::format("{}: no point of the config has all of these (the config's "
                    "points: runner {} --dry-run)",
                    fmt::join(selection.arguments(), " "), spec.file.string()));
  // The points the kept ones are measured against: their problems' baseline and ceiling.
  std::vector<Point> out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    const KernelInfo* k = registry.find(p.kernel);
    const bool reference =
        p.is_baseline || (k && !k->ceiling_variant.empty() && p.variant == k->ceiling_variant);
    if (keep[i] || (reference && kept_problems.count(p.problem_key()))) out.push_back(p);
  }
  return out;
}

}  // namespace runner
