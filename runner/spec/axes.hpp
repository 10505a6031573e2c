#pragma once
// The axes of the experiment matrix, each described once: how a config writes its values, the
// value a point gets when nothing says otherwise, where a point keeps it, how the point key (and
// so the id) spells it, and which record columns show it. Adding an axis is a field on Point (the
// kernels read it) and one entry in the table of runner/spec/axes.cpp; every other part of the
// runner (config reader, matrix expansion, excludes, baselines, ids, records) goes through it.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>
#include "runner/api/axis.hpp"
#include "runner/api/dtype.hpp"
#include "runner/api/point.hpp"
#include "runner/spec/integer_range.hpp"
#include "runner/spec/yaml_reader.hpp"

namespace runner {

// A value of one axis as written in the config. Which alternative an axis holds is fixed by its
// descriptor: kernel/variant → string, size → ProblemSize, dtype → Dtype, block → BlockShape,
// threads/kernel_size/grid → int64, print → bool.
using AxisValue = std::variant<std::string, std::int64_t, ProblemSize, BlockShape, Dtype, bool>;
// As the point key spells it: "float", "64x64x64", "32x8", "3", "true".
std::string to_string(const AxisValue& v);

struct LocatedValue {
  AxisValue value;
  Location where;
};

struct AxisDescriptor {
  Axis axis;
  std::string_view name;
  // What the axis is, in a sentence: the schema's description, which editors show on hover.
  std::string_view meaning;
  // One value as a config writes it; a ConfigError located at the node when it is not one.
  std::function<AxisValue(const YamlReader&, const YAML::Node&)> parse;
  // Whether a sequence is one value rather than a list of values ([32, 8] is one block); unset:
  // a sequence is always a list.
  std::function<bool(const YAML::Node&)> sequence_is_one_value;
  // Axes whose values are integers, or are written as one (size: N is N×N×N), take ranges
  // ({pow2: [lo, hi]}, {range: [start, stop, step]}, runner/spec/integer_range.hpp): the integers
  // they take, and the value an integer stands for. Unset: the axis takes no ranges.
  std::optional<IntegerDomain> integers;
  std::function<AxisValue(std::int64_t)> from_integer;
  // The keys of a mapping that is one value (size: m, n, k); any other mapping is a range.
  std::vector<std::string_view> value_keys;
  // JSON Schema of one value as a config writes it, ranges aside (configs/schema.json, generated
  // by `runner schema`): kept here, next to parse, so that the two are changed together.
  std::function<nlohmann::ordered_json()> json_schema;
  // The value of a point when neither its sweep nor the top level gives one; unset: required.
  std::function<AxisValue()> builtin_default;
  // The point's value: set it, read it (nullopt: the point does not have the axis).
  std::function<void(Point&, const AxisValue&)> assign;
  std::function<std::optional<AxisValue>(const Point&)> value_of;
  // Whether the point has `value`: exclude entries and a baseline's fixed values match with it.
  std::function<bool(const Point&, const AxisValue&)> matches;
  // Place in the point key after "kernel/variant" (ids are hashes of the key: neither the order
  // nor the spelling may ever change); -1 for kernel and variant, which head the key.
  int key_rank = -1;
  // Part of the problem key: points of one problem share inputs and reference.
  bool defines_problem = false;
  // Sets the record columns that show the axis (runner/results/columns.json). A record is this
  // JSON object (runner/results/record.hpp); the spec does not depend on the results layer.
  std::function<void(nlohmann::ordered_json&, const Point&)> to_record;
};

// Every axis, in the order of the Axis enum.
const std::vector<AxisDescriptor>& axis_descriptors();
const AxisDescriptor& describe(Axis a);

// Sets the record columns of every axis of `p` (null where the point does not have the axis).
void axis_columns(nlohmann::ordered_json& r, const Point& p);

}  // namespace runner
