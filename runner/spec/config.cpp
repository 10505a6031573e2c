#include "runner/spec/config.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include "runner/api/registry.hpp"
#include "runner/spec/axes.hpp"
#include "runner/spec/config_error.hpp"
#include "runner/spec/config_keys.hpp"
#include "runner/spec/did_you_mean.hpp"
#include "runner/spec/integer_range.hpp"
#include "runner/spec/slurm_values.hpp"
#include "runner/spec/yaml_reader.hpp"

namespace runner {

namespace {

constexpr std::uintmax_t kMaxConfigBytes = 1 << 20;
// Aliases let a few lines of YAML describe an exponentially large tree; nothing legitimate in a
// config comes near this many nodes.
constexpr std::size_t kMaxNodes = 100000;
// A config is a few levels deep; an alias used inside its own anchor (`a: &a [*a]`) is a cycle
// that a recursive walk would follow until the stack overflows.
constexpr int kMaxDepth = 64;

struct TextProblem {
  Location where;
  std::string what;
};

// Points at the first byte that is not UTF-8, or at a control character YAML does not allow in
// a stream (a NUL byte from a binary file or a broken editor, an escape sequence): yaml-cpp would
// silently end the document at a NUL and read the rest as nothing.
std::optional<TextProblem> first_bad_character(const std::string& s) {
  int line = 1, col = 1;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80           ? 1
                      : (c >> 5) == 0x6  ? 2
                      : (c >> 4) == 0xE  ? 3
                      : (c >> 3) == 0x1E ? 4
                                         : 0;
    if (len == 0 || i + len > s.size())
      return TextProblem{{line, col}, "the file is not valid UTF-8 text"};
    for (std::size_t j = 1; j < len; ++j)
      if ((static_cast<unsigned char>(s[i + j]) >> 6) != 0x2)
        return TextProblem{{line, col}, "the file is not valid UTF-8 text"};
    if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7f)
      return TextProblem{{line, col},
                         c == 0
                             ? "a NUL byte: not text (a binary file, or a file cut short?)"
                             : fmt::format("control character 0x{:02x}: not allowed in YAML", c)};
    if (c == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
    i += len;
  }
  return std::nullopt;
}

// Where the second YAML document of a stream starts: the "---" after the first document's
// content, or the first content after a "..." that ended it. Only called when yaml-cpp found a
// second document (its Load reads the first and ignores the rest silently); nullopt when the text
// has no such marker (then yaml-cpp's second document is malformed content, not a document).
std::optional<Location> second_document_start(const std::string& text) {
  int line = 0;
  bool content = false, ended = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view l(text.data() + pos, end - pos);
    pos = end + 1;
    ++line;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    const auto is_marker = [&](std::string_view m) {
      return l.starts_with(m) && (l.size() == 3 || l[3] == ' ' || l[3] == '\t');
    };
    const auto first = l.find_first_not_of(" \t");
    const bool blank = first == std::string_view::npos || l[first] == '#';
    if (is_marker("---")) {
      if (content || ended) return Location{line, 1};
      const auto rest = l.substr(3).find_first_not_of(" \t");
      if (rest != std::string_view::npos && l[3 + rest] != '#') content = true;
    } else if (is_marker("...")) {
      ended = content;
    } else if (!blank && l[0] != '%') {
      if (ended) return Location{line, 1};
      content = true;
    }
  }
  return std::nullopt;
}

// Where yaml-cpp starts a second document of `text`, if it finds one. Not YAML::LoadAll: on some
// malformed input (a flow sequence followed by more text) yaml-cpp 0.7 never leaves its position
// and LoadAll collects empty documents until memory runs out. Two documents are all we look for.
std::optional<Location> second_document(const std::string& text) {
  struct DocumentStarts final : YAML::EventHandler {
    YAML::Mark last;
    void OnDocumentStart(const YAML::Mark& mark) override { last = mark; }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
  } starts;
  std::istringstream in(text);
  YAML::Parser parser(in);
  if (!parser.HandleNextDocument(starts) || !parser.HandleNextDocument(starts)) return std::nullopt;
  return Location{starts.last.line + 1, starts.last.column + 1};
}

// Column of a tab in the indentation of a line (0-based line index), if it has one.
std::optional<Location> tab_in_indentation(const std::string& s, int line) {
  if (line < 0) return std::nullopt;
  std::size_t pos = 0;
  for (int l = 0; l < line && pos != std::string::npos; ++l) {
    pos = s.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  if (pos == std::string::npos) return std::nullopt;
  for (std::size_t i = pos; i < s.size() && (s[i] == ' ' || s[i] == '\t'); ++i)
    if (s[i] == '\t') return Location{line + 1, static_cast<int>(i - pos) + 1};
  return std::nullopt;
}

class ConfigParser : public YamlReader {
 public:
  explicit ConfigParser(std::string file) : YamlReader(std::move(file)) {}
  using YamlReader::fail;

  // One value of an axis, with where it was written.
  LocatedValue value(Axis axis, const YAML::Node& n) const {
    return LocatedValue{describe(axis).parse(*this, n), where(n)};
  }

  // Whether `n` is written as a range of values ({pow2: ...}, {range: ...}) for this axis.
  static bool range_of(Axis axis, const YAML::Node& n) {
    return is_range(n, describe(axis).value_keys);
  }

  // One item of a list: a value, or a range, which stands for its values (each located at it).
  void add_item(Axis axis, const YAML::Node& n, std::vector<LocatedValue>& out) const {
    const AxisDescriptor& d = describe(axis);
    if (!range_of(axis, n)) {
      out.push_back(value(axis, n));
      return;
    }
    if (!d.integers)
      fail(n,
           fmt::format("axis '{}' takes no ranges (ranges are for size, threads, kernel_size "
                       "and grid){}",
                       d.name, axis == Axis::block ? ": list the shapes, [[32, 8], [64, 4]]" : ""));
    for (const std::int64_t v : expand_range(*this, n, d.name, *d.integers))
      out.push_back(LocatedValue{d.from_integer(v), where(n)});
  }

  Axis axis_of(const std::string& key, const YAML::Node& key_node, std::string_view where_text) {
    const auto a = parse_axis(key);
    if (a) return *a;
    std::vector<std::string> names;
    for (const auto& d : axis_descriptors()) names.emplace_back(d.name);
    const std::string hint = closest_match(key, names);
    fail(key_node, fmt::format("unknown axis '{}' in {}{}", key, where_text,
                               hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
  }

  // Whether a sequence is one value of the axis ([32, 8] is one block), not a list of values.
  static bool one_value(Axis axis, const YAML::Node& n) {
    const auto& is_one = describe(axis).sequence_is_one_value;
    return n.IsSequence() && is_one && is_one(n);
  }

  // A list of values for one axis. A scalar counts as a one-element list, and so does a sequence
  // the axis reads as one value (a block written [x, y]); a range, alone or as an item of the
  // list, counts as its values.
  std::vector<LocatedValue> values(Axis axis, const YAML::Node& n) {
    std::vector<LocatedValue> out;
    if (n.IsSequence() && !one_value(axis, n)) {
      if (n.size() == 0)
        fail(n, fmt::format("axis '{}' has an empty list of values", axis_name(axis)));
      for (const auto& item : n) add_item(axis, item, out);
    } else if (n.IsNull()) {
      fail(n, fmt::format("axis '{}' has no values", axis_name(axis)));
    } else {
      add_item(axis, n, out);
    }
    return out;
  }

  Sweep sweep(const YAML::Node& n, std::string_view what) {
    Sweep s;
    s.where = where(n);
    for_each_key(n, what, [&](const std::string& key, const YAML::Node& k, const YAML::Node& v) {
      const Axis axis = axis_of(key, k, what);
      s.axes.emplace_back(axis, values(axis, v));
    });
    if (s.axes.empty()) fail(n, fmt::format("{} is empty", what));
    return s;
  }

  // The numbers of the config take their bounds from runner/spec/config_keys.hpp, which the
  // schema is generated from too.
  static std::string qualified(std::string_view section, std::string_view name) {
    return section.empty() ? std::string(name) : fmt::format("{}.{}", section, name);
  }
  std::int64_t integer_key_value(std::string_view section, std::string_view name,
                                 const YAML::Node& v) const {
    const IntegerKey* k = integer_key(section, name);
    return integer_in(v, qualified(section, name), k->lo, k->hi);
  }
  double number_key_value(std::string_view section, std::string_view name,
                          const YAML::Node& v) const {
    const NumberKey* k = number_key(section, name);
    return number(v, qualified(section, name), k->lo, k->hi);
  }

  SamplingRule repeat(const YAML::Node& n) {
    SamplingRule r;
    for_each_key(n, "repeat",
                 [&](const std::string& key, const YAML::Node& k, const YAML::Node& v) {
                   const auto integer = [&] {
                     return static_cast<int>(integer_key_value(kRepeatSection, key, v));
                   };
                   const auto real = [&] { return number_key_value(kRepeatSection, key, v); };
                   if (key == "warmup")
                     r.warmup = integer();
                   else if (key == "min_samples")
                     r.min_samples = integer();
                   else if (key == "max_samples")
                     r.max_samples = integer();
                   else if (key == "target_rsd")
                     r.target_rsd = real();
                   else if (key == "min_seconds")
                     r.min_seconds = real();
                   else if (key == "max_seconds")
                     r.max_seconds = real();
                   else
                     unknown_key(k, key, "repeat", section_keys(kRepeatSection));
                 });
    if (r.max_samples < r.min_samples)
      fail(n, fmt::format("repeat.max_samples ({}) is below repeat.min_samples ({})", r.max_samples,
                          r.min_samples));
    return r;
  }

  [[noreturn]] void unknown_key(const YAML::Node& k, const std::string& key,
                                std::string_view section,
                                const std::vector<std::string>& known) const {
    const std::string hint = closest_match(key, known);
    fail(k, fmt::format("unknown key '{}' in {}{}", key, section,
                        hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
  }

  // A scalar that `problem` (runner/spec/slurm_values.hpp) accepts, or a located error saying why.
  std::string checked(const YAML::Node& n, std::string_view what,
                      std::optional<std::string> (*problem)(std::string_view)) const {
    std::string value = scalar(n, what);
    if (const auto why = problem(value)) fail(n, fmt::format("{}: {}", what, *why));
    return value;
  }

  // `setup:` is a list of shell lines. A lone string is refused rather than taken as one line:
  // the list is the form that keeps several commands apart. A line YAML reads as a mapping
  // (`- echo a: b`) says to quote it.
  std::vector<std::string> setup_lines(const YAML::Node& n) const {
    if (!n.IsSequence())
      fail(n, "slurm.setup must be a list of shell lines, e.g. [\"module load cuda/12.4\"]");
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < n.size(); ++i) {
      const YAML::Node item = n[i];
      if (!item.IsScalar())
        fail(item, fmt::format(
                       "slurm.setup[{}] must be one line of text{}", i,
                       item.IsMap() ? " (YAML read it as a mapping: put the line in quotes)" : ""));
      if (const auto why = setup_line_problem(item.Scalar()))
        fail(item, fmt::format("slurm.setup[{}] {}", i, *why));
      lines.push_back(item.Scalar());
    }
    return lines;
  }

  // `plugins:` is a list of files, relative to the config's folder: the user's own kernels.
  std::vector<PluginEntry> plugins(const YAML::Node& n) const {
    if (!n.IsSequence())
      fail(n, "plugins must be a list of files, e.g. [my_transpose.cu] (relative to this config)");
    const std::filesystem::path base =
        std::filesystem::absolute(std::filesystem::path(file())).parent_path();
    std::vector<PluginEntry> entries;
    for (std::size_t i = 0; i < n.size(); ++i) {
      const YAML::Node item = n[i];
      if (!item.IsScalar() || item.Scalar().empty())
        fail(item, fmt::format("plugins[{}] must be a file name (.cu, .cpp, .hip or .so)", i));
      const std::filesystem::path written = item.Scalar();
      static const std::set<std::string> kinds = {".cu", ".cpp", ".cc", ".cxx", ".hip", ".so"};
      if (!kinds.count(written.extension().string()))
        fail(item, fmt::format("plugins[{}]: '{}' is not a plugin: a .cu, .cpp (.cc, .cxx) or "
                               ".hip source, or a .so built for this runner",
                               i, item.Scalar()));
      PluginEntry e{item.Scalar(), written.is_absolute() ? written : base / written, where(item)};
      e.path = e.path.lexically_normal();
      for (const auto& other : entries)
        if (other.path == e.path)
          fail(item, fmt::format("plugins[{}]: {} is listed twice", i, e.written));
      entries.push_back(std::move(e));
    }
    return entries;
  }

  // `gpus:` all, a count, or a list of GPU indices or UUIDs (runner/spec/gpu_request.hpp).
  GpuRequest gpu_request(const YAML::Node& n) const {
    GpuRequest request;
    if (n.IsSequence()) {
      // A list, each entry checked where it stands; "[2]" is the GPU 2, not a count.
      if (n.size() == 0) fail(n, "gpus: an empty list names no GPU (all, a count, or [0, 2])");
      std::vector<std::string> items;
      for (std::size_t i = 0; i < n.size(); ++i) {
        if (!n[i].IsScalar())
          fail(n[i], fmt::format("gpus[{}] must be a GPU index or UUID (GPU-...)", i));
        const std::string item = n[i].Scalar();
        if (const std::string problem = gpu_item_problem(item); !problem.empty())
          fail(n[i], fmt::format("gpus[{}]: {}", i, problem));
        const auto twice = std::find(items.begin(), items.end(), item);
        if (twice != items.end())
          fail(n[i], fmt::format("gpus[{}]: GPU {} is named twice (also gpus[{}])", i, item,
                                 twice - items.begin()));
        items.push_back(item);
      }
      request.kind = GpuRequest::Kind::list;
      request.text = fmt::format("[{}]", fmt::join(items, ", "));
      request.items = std::move(items);
    } else if (n.IsScalar()) {
      try {
        request = parse_gpu_request(n.Scalar(), GpuRequestSyntax::yaml);
      } catch (const std::invalid_argument& e) {
        fail(n, fmt::format("gpus: {}: {}", n.Scalar(), e.what()));
      }
    } else {
      fail(n, "gpus must be all, a count of GPUs, or a list of GPU indices or UUIDs");
    }
    const Location at = where(n);
    request.origin = fmt::format("{}:{}:{}: gpus: {}", file(), at.line, at.column, request.text);
    return request;
  }

  SlurmSpec slurm(const YAML::Node& n) {
    SlurmSpec s;
    const std::vector<std::string>& known = section_keys(kSlurmSection);
    for_each_key(n, "slurm", [&](const std::string& key, const YAML::Node& k, const YAML::Node& v) {
      if (key == "partition")
        s.partition = scalar(v, "slurm.partition");
      else if (key == "account")
        s.account = scalar(v, "slurm.account");
      else if (key == "qos")
        s.qos = scalar(v, "slurm.qos");
      else if (key == "time")
        s.time = checked(v, "slurm.time", time_limit_problem);
      else if (key == "gres")
        s.gres = scalar(v, "slurm.gres");
      else if (key == "constraint")
        s.constraint = scalar(v, "slurm.constraint");
      else if (key == "mem")
        s.mem = checked(v, "slurm.mem", memory_size_problem);
      else if (key == "exclude")
        s.exclude = checked(v, "slurm.exclude", hostlist_problem);
      else if (key == "setup")
        s.setup = setup_lines(v);
      else if (key == "cpus")
        s.cpus = static_cast<int>(integer_key_value(kSlurmSection, key, v));
      else if (key == "throttle")
        s.throttle = static_cast<int>(integer_key_value(kSlurmSection, key, v));
      else if (key == "gpus_per_task")
        s.gpus_per_task = static_cast<int>(integer_key_value(kSlurmSection, key, v));
      else if (key == "extra") {
        if (v.IsScalar())
          s.extra.push_back(v.Scalar());
        else if (v.IsSequence())
          for (const auto& e : v) s.extra.push_back(scalar(e, "slurm.extra"));
        else
          fail(v, "slurm.extra must be a list of sbatch options");
      } else
        unknown_key(k, key, "slurm", known);
    });
    return s;
  }

  nlohmann::json to_json(const YAML::Node& n, int depth = 0) {
    if (++nodes_ > kMaxNodes)
      fail(n, fmt::format("the config expands to more than {} values (aliases?)", kMaxNodes));
    if (depth > kMaxDepth)
      fail(n,
           fmt::format("the config nests deeper than {} levels (an alias inside its own anchor?)",
                       kMaxDepth));
    switch (n.Type()) {
      case YAML::NodeType::Map: {
        nlohmann::json j = nlohmann::json::object();
        // A key that is not a name is refused later, with its location; here it must not throw.
        for (const auto& kv : n)
          j[kv.first.IsScalar() ? kv.first.Scalar() : to_json(kv.first, depth + 1).dump()] =
              to_json(kv.second, depth + 1);
        return j;
      }
      case YAML::NodeType::Sequence: {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& item : n) j.push_back(to_json(item, depth + 1));
        return j;
      }
      case YAML::NodeType::Scalar:
        return n.Scalar();
      default:
        return nullptr;
    }
  }

  ExperimentSpec parse(const std::string& text) {
    if (auto bad = first_bad_character(text)) fail(bad->where, bad->what);
    YAML::Node root;
    try {
      root = YAML::Load(text);  // the first document; yaml-cpp ignores the rest
      if (const auto second = second_document(text)) {
        if (const auto marker = second_document_start(text))
          fail(*marker,
               "a second YAML document starts here: a config is one document; split the "
               "experiments into several files");
        fail(*second, "YAML syntax error: content after the end of the document");
      }
    } catch (const YAML::DeepRecursion& e) {
      // yaml-cpp's own guard (about 500 flow levels) says "bad file": the same message as this
      // reader's, which stops at kMaxDepth.
      fail(Location{e.mark.line + 1, e.mark.column + 1},
           fmt::format("the config nests deeper than {} levels (an alias inside its own anchor?)",
                       kMaxDepth));
    } catch (const YAML::ParserException& e) {
      // yaml-cpp reports a tab in the indentation as what it then failed to find ("illegal block
      // entry", "end of map not found"): name the tab instead.
      if (const auto tab = tab_in_indentation(text, e.mark.line))
        fail(*tab, "YAML syntax error: tab in indentation (YAML indents with spaces only)");
      fail(Location{e.mark.line + 1, e.mark.column + 1}, "YAML syntax error: " + e.msg);
    }
    if (!root.IsMap())
      fail(Location{1, 1}, "a config must be a mapping with experiment, kernel and sweeps");

    ExperimentSpec spec;
    spec.as_json = to_json(root);
    bool have_sweeps = false;
    std::vector<std::string> known = section_keys("");
    for (const auto& d : axis_descriptors()) known.emplace_back(d.name);
    for_each_key(
        root, "the config", [&](const std::string& key, const YAML::Node& k, const YAML::Node& v) {
          if (key == "experiment") {
            spec.experiment = name_scalar(v, "experiment");
            for (char c : spec.experiment)
              if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
                    c == '.'))
                fail(v, fmt::format("experiment '{}' may hold only letters, digits, '-', '_' and "
                                    "'.' (it names a folder)",
                                    spec.experiment));
            if (spec.experiment.empty() || spec.experiment[0] == '.')
              fail(v, "experiment needs a name");
            if (spec.experiment.size() > kMaxExperimentName)
              fail(v, fmt::format(
                          "experiment name is {} characters long; at most {} (it names a folder "
                          "and Slurm jobs)",
                          spec.experiment.size(), kMaxExperimentName));
          } else if (key == "description") {
            scalar(v, "description");
          } else if (key == "repeat") {
            spec.repeat = repeat(v);
          } else if (key == "measure") {
            const std::string mode = scalar(v, "measure");
            spec.measure = parse_measure_mode(mode);
            if (!spec.measure) fail(v, fmt::format("measure must be cold or hot, got '{}'", mode));
          } else if (key == "timeout_s") {
            spec.timeout_s = number_key_value("", key, v);
          } else if (key == "verify") {
            for_each_key(v, "verify",
                         [&](const std::string& vk, const YAML::Node& vkn, const YAML::Node& vv) {
                           if (vk == "seed")
                             spec.seed = static_cast<std::uint64_t>(
                                 integer_key_value(kVerifySection, vk, vv));
                           else
                             unknown_key(vkn, vk, "verify", section_keys(kVerifySection));
                         });
          } else if (key == "baseline") {
            BaselineSpec b;
            b.where = where(v);
            if (v.IsScalar()) {
              b.variant = v.Scalar();
            } else {
              for_each_key(
                  v, "baseline",
                  [&](const std::string& bk, const YAML::Node& bkn, const YAML::Node& bv) {
                    const Axis a = axis_of(bk, bkn, "baseline");
                    if (a == Axis::variant)
                      b.variant = scalar(bv, "baseline.variant");
                    else if (a == Axis::kernel)
                      fail(
                          bkn,
                          "baseline cannot name a kernel: it applies to each kernel of the config");
                    else if (range_of(a, bv))
                      fail(bv, fmt::format("baseline takes one value of '{}', not a range", bk));
                    else
                      b.fixed.emplace_back(a, value(a, bv));
                  });
            }
            if (b.variant.empty())
              fail(v, "baseline needs a variant, e.g. baseline: {variant: omp_serial}");
            spec.baseline = std::move(b);
          } else if (key == "sweeps") {
            have_sweeps = true;
            if (!v.IsSequence()) fail(v, "sweeps must be a list of mappings (axis: [values])");
            if (v.size() == 0) fail(v, "sweeps is empty: nothing to run");
            for (std::size_t i = 0; i < v.size(); ++i)
              spec.sweeps.push_back(sweep(v[i], fmt::format("sweeps[{}]", i)));
          } else if (key == "exclude") {
            if (!v.IsSequence())
              fail(v, "exclude must be a list of mappings (axis: value or [values])");
            for (std::size_t i = 0; i < v.size(); ++i)
              spec.excludes.push_back(sweep(v[i], fmt::format("exclude[{}]", i)));
          } else if (key == "slurm") {
            spec.slurm = slurm(v);
          } else if (key == "plugins") {
            spec.plugins = plugins(v);
          } else if (key == "gpus") {
            spec.gpus = gpu_request(v);
          } else if (key == "gpu_mode") {
            const std::string mode = scalar(v, "gpu_mode");
            spec.gpu_mode = parse_gpu_mode(mode);
            if (!spec.gpu_mode)
              fail(v, fmt::format("gpu_mode must be spread or each, got '{}'", mode));
          } else if (const auto axis = parse_axis(key)) {
            if (v.IsSequence() && !one_value(*axis, v))
              fail(v, fmt::format(
                          "top-level '{}' is a default and takes one value; put lists in sweeps",
                          key));
            if (range_of(*axis, v))
              fail(v, fmt::format(
                          "top-level '{}' is a default and takes one value; put ranges in sweeps",
                          key));
            spec.defaults[*axis] = value(*axis, v);
          } else {
            unknown_key(k, key, "the config", known);
          }
        });
    if (spec.experiment.empty()) fail(Location{1, 1}, "missing 'experiment: NAME'");
    if (!have_sweeps) fail(Location{1, 1}, "missing 'sweeps:' (a list of axis: [values] mappings)");
    return spec;
  }

 private:
  std::size_t nodes_ = 0;
};

}  // namespace

ExperimentSpec parse_config(const std::string& text, const std::string& file_name) {
  ConfigParser parser(file_name);
  ExperimentSpec spec = parser.parse(text);
  spec.file = file_name;
  spec.text = text;
  return spec;
}

std::vector<LocatedValue> parse_axis_values(Axis axis, const std::string& text,
                                            const std::string& origin) {
  ConfigParser parser(origin);
  YAML::Node node;
  try {
    node = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(origin, 0, 0, "YAML syntax error: " + e.msg);
  }
  if (!node.IsDefined() || node.IsNull())
    throw ConfigError(origin, 0, 0, fmt::format("axis '{}' has no values", axis_name(axis)));
  return parser.values(axis, node);
}

ExperimentSpec load_config(const std::filesystem::path& file) {
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (ec || !std::filesystem::exists(status))
    throw ConfigError(file.string(), 0, 0, "no such file");
  if (std::filesystem::is_directory(status))
    throw ConfigError(file.string(), 0, 0, "is a directory, not a config file");
  if (!std::filesystem::is_regular_file(status))
    throw ConfigError(file.string(), 0, 0, "is not a regular file");
  const auto bytes = std::filesystem::file_size(file, ec);
  if (!ec && bytes > kMaxConfigBytes)
    throw ConfigError(
        file.string(), 0, 0,
        fmt::format("is {} bytes; a config may be at most {} bytes", bytes, kMaxConfigBytes));
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError(file.string(), 0, 0, "cannot be read");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parse_config(buffer.str(), file.string());
}

}  // namespace runner
