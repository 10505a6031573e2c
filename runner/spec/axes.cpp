#include "runner/spec/axes.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "runner/api/registry.hpp"

namespace runner {

using Json = nlohmann::ordered_json;

namespace {

// The largest extent, thread count and block side a config may ask for: far beyond any machine,
// small enough that byte counts stay exact.
constexpr std::int64_t kMaxExtent = std::int64_t{1} << 40;
constexpr std::int64_t kMaxThreads = 4096;
constexpr int kMaxBlockSide = 1 << 20;
constexpr IntegerDomain kExtents{1, kMaxExtent};

// The spellings parse_dtype (runner/api/dtype.hpp) reads, for the schema.
const std::vector<std::string> kDtypeSpellings = {"float", "double", "f32", "f64", "fp32", "fp64"};

int default_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

ProblemSize parse_size(const YamlReader& read, const YAML::Node& n) {
  if (n.IsScalar()) {
    const std::int64_t v = read.integer(n, "size");
    if (const auto why = kExtents.problem("size", v)) read.fail(n, *why);
    return {v, v, v};
  }
  if (n.IsMap()) {
    ProblemSize s;
    read.for_each_key(
        n, "size", [&](const std::string& key, const YAML::Node& k, const YAML::Node& v) {
          const std::int64_t x = read.integer_in(v, "size." + key, 1, kMaxExtent);
          if (key == "m")
            s.m = x;
          else if (key == "n")
            s.n = x;
          else if (key == "k")
            s.k = x;
          else
            read.fail(k, fmt::format("unknown size dimension '{}' (expected m, n, k)", key));
        });
    if (s.m == 0 || s.n == 0) read.fail(n, "size needs at least m and n");
    return s;
  }
  read.fail(n, "size must be a number (square) or {m: M, n: N, k: K}");
}

BlockShape parse_block(const YamlReader& read, const YAML::Node& n) {
  BlockShape b;
  if (n.IsSequence()) {
    if (n.size() < 1 || n.size() > 2) read.fail(n, "block must be [x] or [x, y]");
    b.x = static_cast<int>(read.integer_in(n[0], "block x", 1, kMaxBlockSide));
    if (n.size() == 2) b.y = static_cast<int>(read.integer_in(n[1], "block y", 1, kMaxBlockSide));
    return b;
  }
  if (n.IsScalar()) {
    // "32x8", or a single number (a 1-D block)
    const std::string s = n.Scalar();
    const auto x = s.find('x');
    // "64" in quotes is the text form of a 1-D block, as "64x1" is (the schema agrees).
    if (x == std::string::npos && !YamlReader::quoted(n)) {
      b.x = static_cast<int>(read.integer_in(n, "block", 1, kMaxBlockSide));
      return b;
    }
    auto side = [&](std::string_view part) {
      int v = 0;
      const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
      if (ec != std::errc() || ptr != part.data() + part.size() || v < 1 || v > kMaxBlockSide)
        read.fail(n, fmt::format("block must look like [32, 8] or 32x8, got '{}'", s));
      return v;
    };
    b.x = side(std::string_view(s).substr(0, x));
    if (x != std::string::npos) b.y = side(std::string_view(s).substr(x + 1));
    return b;
  }
  read.fail(n, "block must be [x, y]");
}

// An axis whose point field is std::optional<Field> and whose config values are Value.
template <typename Field, typename Value>
void typed_storage(AxisDescriptor& d, std::optional<Field> Point::*field) {
  d.assign = [field](Point& p, const AxisValue& v) {
    p.*field = static_cast<Field>(std::get<Value>(v));
  };
  d.value_of = [field](const Point& p) -> std::optional<AxisValue> {
    if (!(p.*field)) return std::nullopt;
    return AxisValue(static_cast<Value>(*(p.*field)));
  };
  d.matches = [field](const Point& p, const AxisValue& v) {
    return (p.*field).has_value() && static_cast<Value>(*(p.*field)) == std::get<Value>(v);
  };
}

// An integer axis stored as one integer column of the same name.
AxisDescriptor integer_axis(Axis axis, std::string_view name, auto Point::*field,
                            IntegerDomain domain, std::int64_t fallback, int key_rank) {
  AxisDescriptor d;
  d.axis = axis;
  d.name = name;
  d.integers = domain;
  d.parse = [name, domain](const YamlReader& read, const YAML::Node& n) -> AxisValue {
    const std::int64_t v = read.integer(n, name);
    if (const auto why = domain.problem(name, v)) read.fail(n, *why);
    return v;
  };
  d.from_integer = [](std::int64_t v) { return AxisValue(v); };
  d.json_schema = [domain] { return domain.json_schema(); };
  d.builtin_default = [fallback] { return AxisValue(fallback); };
  using Field = typename std::remove_reference_t<decltype(Point{}.*field)>::value_type;
  typed_storage<Field, std::int64_t>(d, field);
  d.key_rank = key_rank;
  d.to_record = [field, name](nlohmann::ordered_json& r, const Point& p) {
    r[std::string(name)] =
        (p.*field) ? nlohmann::ordered_json(*(p.*field)) : nlohmann::ordered_json(nullptr);
  };
  return d;
}

// The names of the registry, which an editor completes. Only as examples: a config with plugins
// names kernels and variants of its own; the schema's root checks the names of a config without
// plugins against the registry (runner/spec/config_schema.cpp, known_kernel / known_variant).
Json name_schema(const std::vector<std::string>& names) {
  return {{"type", "string"}, {"minLength", 1}, {"examples", names}};
}

std::vector<std::string> every_variant_name() {
  std::vector<std::string> names;
  for (const auto& k : Registry::instance().kernels())
    for (const auto& v : k.variants)
      if (std::find(names.begin(), names.end(), v.name) == names.end()) names.push_back(v.name);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<AxisDescriptor> make_table() {
  std::vector<AxisDescriptor> t;

  AxisDescriptor kernel;
  kernel.axis = Axis::kernel;
  kernel.name = "kernel";
  kernel.meaning = "The kernel family: `runner list` shows them.";
  kernel.parse = [](const YamlReader& read, const YAML::Node& n) -> AxisValue {
    const std::string s = read.scalar(n, "kernel");
    if (s.empty()) read.fail(n, "kernel must not be empty");
    return s;
  };
  kernel.assign = [](Point& p, const AxisValue& v) { p.kernel = std::get<std::string>(v); };
  kernel.value_of = [](const Point& p) -> std::optional<AxisValue> { return p.kernel; };
  kernel.matches = [](const Point& p, const AxisValue& v) {
    return p.kernel == std::get<std::string>(v);
  };
  kernel.to_record = [](nlohmann::ordered_json& r, const Point& p) { r["kernel"] = p.kernel; };
  kernel.json_schema = [] {
    auto names = Registry::instance().kernel_names();
    std::sort(names.begin(), names.end());
    return name_schema(names);
  };
  t.push_back(kernel);

  AxisDescriptor variant = kernel;
  variant.axis = Axis::variant;
  variant.name = "variant";
  variant.meaning =
      "An implementation of the kernel: `runner list` shows them. Default: every variant of the "
      "kernel.";
  variant.parse = [](const YamlReader& read, const YAML::Node& n) -> AxisValue {
    const std::string s = read.scalar(n, "variant");
    if (s.empty()) read.fail(n, "variant must not be empty");
    return s;
  };
  variant.assign = [](Point& p, const AxisValue& v) { p.variant = std::get<std::string>(v); };
  variant.value_of = [](const Point& p) -> std::optional<AxisValue> { return p.variant; };
  variant.matches = [](const Point& p, const AxisValue& v) {
    return p.variant == std::get<std::string>(v);
  };
  variant.to_record = [](nlohmann::ordered_json& r, const Point& p) { r["variant"] = p.variant; };
  variant.json_schema = [] { return name_schema(every_variant_name()); };
  t.push_back(variant);

  AxisDescriptor size;
  size.axis = Axis::size;
  size.name = "size";
  size.meaning =
      "Problem size: N (N in every dimension the kernel has) or {m, n, k}; gemm needs k.";
  size.parse = [](const YamlReader& read, const YAML::Node& n) -> AxisValue {
    return parse_size(read, n);
  };
  size.integers = kExtents;
  size.from_integer = [](std::int64_t v) { return AxisValue(ProblemSize{v, v, v}); };
  size.value_keys = {"m", "n", "k"};
  size.json_schema = [] {
    const Json extent = kExtents.json_schema();
    return Json{{"oneOf",
                 {extent,
                  {{"type", "object"},
                   {"additionalProperties", false},
                   {"required", {"m", "n"}},
                   {"properties", {{"m", extent}, {"n", extent}, {"k", extent}}}}}}};
  };
  typed_storage<ProblemSize, ProblemSize>(size, &Point::size);
  // 2-D problems have no k: a size written with one (or a square N) matches on m and n.
  size.matches = [](const Point& p, const AxisValue& v) {
    if (!p.size) return false;
    const auto& s = std::get<ProblemSize>(v);
    return p.size->m == s.m && p.size->n == s.n && (p.size->k == 0 || p.size->k == s.k);
  };
  size.key_rank = 1;
  size.defines_problem = true;
  size.to_record = [](nlohmann::ordered_json& r, const Point& p) {
    r["m"] = p.size ? Json(p.size->m) : Json(nullptr);
    r["n"] = p.size ? Json(p.size->n) : Json(nullptr);
    r["k"] = p.size && p.size->k ? Json(p.size->k) : Json(nullptr);
  };
  t.push_back(size);

  AxisDescriptor dtype;
  dtype.axis = Axis::dtype;
  dtype.name = "dtype";
  dtype.meaning = "Element type: float or double.";
  dtype.parse = [](const YamlReader& read, const YAML::Node& n) -> AxisValue {
    const std::string s = read.scalar(n, "dtype");
    const auto d = parse_dtype(s);
    if (!d) read.fail(n, fmt::format("unknown dtype '{}' (expected float or double)", s));
    return *d;
  };
  dtype.builtin_default = [] { return AxisValue(Dtype::f32); };
  dtype.json_schema = [] { return Json{{"enum", kDtypeSpellings}}; };
  typed_storage<Dtype, Dtype>(dtype, &Point::dtype);
  dtype.key_rank = 0;
  dtype.defines_problem = true;
  dtype.to_record = [](nlohmann::ordered_json& r, const Point& p) {
    r["dtype"] = p.dtype ? Json(std::string(dtype_name(*p.dtype))) : Json(nullptr);
  };
  t.push_back(dtype);

  AxisDescriptor block;
  block.axis = Axis::block;
  block.name = "block";
  block.meaning = "CUDA block shape: [x, y], [x], \"XxY\" or a number (y = 1). Default [16, 16].";
  block.parse = [](const YamlReader& read, const YAML::Node& n) -> AxisValue {
    return parse_block(read, n);
  };
  // [32, 8] is one block; [[32, 8], [16, 16]] and ["32x8", "16x16"] are lists of blocks.
  // A quoted first item is text, a block of its own ("64" is 64x1), as the schema reads it.
  block.sequence_is_one_value = [](const YAML::Node& n) {
    return n.size() > 0 && n[0].IsScalar() && !YamlReader::quoted(n[0]) &&
           n[0].Scalar().find('x') == std::string::npos;
  };
  block.builtin_default = [] { return AxisValue(BlockShape{16, 16}); };
  block.json_schema = [] {
    const Json side = {{"type", "integer"}, {"minimum", 1}, {"maximum", kMaxBlockSide}};
    return Json{{"oneOf",
                 {side,
                  {{"type", "string"}, {"pattern", "^[0-9]+(x[0-9]+)?$"}},
                  {{"type", "array"}, {"minItems", 1}, {"maxItems", 2}, {"items", side}}}}};
  };
  typed_storage<BlockShape, BlockShape>(block, &Point::block);
  block.key_rank = 3;
  block.to_record = [](nlohmann::ordered_json& r, const Point& p) {
    r["block_x"] = p.block ? Json(p.block->x) : Json(nullptr);
    r["block_y"] = p.block ? Json(p.block->y) : Json(nullptr);
  };
  t.push_back(block);

  AxisDescriptor threads = integer_axis(Axis::threads, "threads", &Point::threads, {1, kMaxThreads},
                                        default_threads(), 5);
  threads.meaning = "OpenMP threads. Default: the CPUs of the machine that expands the config.";
  t.push_back(threads);

  AxisDescriptor kernel_size = integer_axis(Axis::kernel_size, "kernel_size", &Point::kernel_size,
                                            {1, 31, /*odd=*/true}, 3, 2);
  kernel_size.defines_problem = true;
  kernel_size.meaning = "Side of the square convolution filter: odd, 1 to 31. Default 3.";
  t.push_back(kernel_size);

  AxisDescriptor grid =
      integer_axis(Axis::grid, "grid", &Point::grid, {0, std::int64_t{1} << 31}, 0, 4);
  grid.meaning = "Blocks of a grid-stride kernel; 0: the variant's own choice (the default).";
  t.push_back(grid);

  AxisDescriptor print;
  print.axis = Axis::print;
  print.name = "print";
  print.meaning = "Whether the hello kernel prints.";
  print.parse = [](const YamlReader& read, const YAML::Node& n) -> AxisValue {
    return read.boolean(n, "print");
  };
  print.builtin_default = [] { return AxisValue(false); };
  print.json_schema = [] {
    return Json{{"anyOf", {{{"type", "boolean"}}, {{"enum", YamlReader::boolean_words()}}}}};
  };
  typed_storage<bool, bool>(print, &Point::print);
  print.key_rank = 6;
  print.to_record = [](nlohmann::ordered_json& r, const Point& p) {
    r["print"] = p.print ? Json(*p.print) : Json(nullptr);
  };
  t.push_back(print);

  for (std::size_t i = 0; i < t.size(); ++i)
    if (static_cast<std::size_t>(t[i].axis) != i)
      throw std::logic_error("runner/spec/axes.cpp: the table must follow the Axis enum");
  return t;
}

// The descriptors with a place in the key, in key order.
const std::vector<const AxisDescriptor*>& in_key_order() {
  static const std::vector<const AxisDescriptor*> order = [] {
    std::vector<const AxisDescriptor*> v;
    for (const auto& d : axis_descriptors())
      if (d.key_rank >= 0) v.push_back(&d);
    std::sort(v.begin(), v.end(),
              [](const auto* a, const auto* b) { return a->key_rank < b->key_rank; });
    return v;
  }();
  return order;
}

}  // namespace

std::string to_string(const AxisValue& v) {
  struct Visitor {
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(const ProblemSize& s) const { return runner::to_string(s); }
    std::string operator()(const BlockShape& b) const { return runner::to_string(b); }
    std::string operator()(Dtype d) const { return std::string(dtype_name(d)); }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
  };
  return std::visit(Visitor{}, v);
}

const std::vector<AxisDescriptor>& axis_descriptors() {
  static const std::vector<AxisDescriptor> table = make_table();
  return table;
}

const AxisDescriptor& describe(Axis a) {
  return axis_descriptors().at(static_cast<std::size_t>(a));
}

void axis_columns(nlohmann::ordered_json& r, const Point& p) {
  for (const auto& d : axis_descriptors()) d.to_record(r, p);
}

// The names of runner/api/axis.hpp, from the table.
std::string_view axis_name(Axis a) {
  return describe(a).name;
}

std::optional<Axis> parse_axis(std::string_view s) {
  for (const auto& d : axis_descriptors())
    if (d.name == s) return d.axis;
  return std::nullopt;
}

// Point's key, id and problem key (runner/api/point.hpp) are spelled by the axis table.
std::string Point::key() const {
  std::string s = fmt::format("{}/{}", kernel, variant);
  for (const auto* d : in_key_order())
    if (const auto v = d->value_of(*this)) s += fmt::format(" {}={}", d->name, to_string(*v));
  if (gpu) s += fmt::format(" gpu={}", *gpu);
  return s;
}

std::string Point::problem_key() const {
  std::string s = kernel;
  for (const auto* d : in_key_order())
    if (d->defines_problem)
      if (const auto v = d->value_of(*this)) s += fmt::format(" {}={}", d->name, to_string(*v));
  if (gpu) s += fmt::format(" gpu={}", *gpu);
  return s;
}

std::string Point::id() const {
  return fmt::format("p{:016x}", fnv1a64(key()));
}

std::string to_string(const ProblemSize& s) {
  if (s.k == 0) return fmt::format("{}x{}", s.m, s.n);
  return fmt::format("{}x{}x{}", s.m, s.n, s.k);
}

std::string to_string(const BlockShape& b) {
  return fmt::format("{}x{}", b.x, b.y);
}

}  // namespace runner
