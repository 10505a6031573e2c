#include "runner/spec/config_schema.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "runner/api/registry.hpp"
#include "runner/spec/axes.hpp"
#include "runner/spec/config.hpp"
#include "runner/spec/config_keys.hpp"
#include "runner/spec/integer_range.hpp"
#include "runner/spec/slurm_values.hpp"
#include "runner/spec/yaml_reader.hpp"

namespace runner {

using Json = nlohmann::ordered_json;

namespace {

Json def_ref(std::string_view def) {
  return {{"$ref", fmt::format("#/$defs/{}", def)}};
}

// One value, or a non-empty list of values: what a sweep or an exclude entry gives an axis.
Json one_or_list(const Json& one) {
  return {{"anyOf", {one, {{"type", "array"}, {"minItems", 1}, {"items", one}}}}};
}

// A number key of the config, with the bounds the reader checks (config_keys.hpp); `fallback`
// is the value it has when left out.
Json number_key_schema(std::string_view section, std::string_view name, const char* meaning,
                       Json fallback) {
  Json s = {{"description", meaning}};
  if (const IntegerKey* k = integer_key(section, name)) {
    s["type"] = "integer";
    s["minimum"] = k->lo;
    s["maximum"] = k->hi;
  } else if (const NumberKey* r = number_key(section, name)) {
    s["type"] = "number";
    s["minimum"] = r->lo;
    s["maximum"] = r->hi;
  } else {
    throw std::logic_error(fmt::format("config_schema: {}.{} is not a number key", section, name));
  }
  if (!fallback.is_null()) s["default"] = std::move(fallback);
  return s;
}

Json repeat_schema() {
  const SamplingRule d;
  Json properties = Json::object();
  for (const auto& key : section_keys(kRepeatSection)) {
    if (key == "warmup")
      properties[key] = number_key_schema(
          kRepeatSection, key,
          "Untimed runs before the samples; the first run's output is verified.", d.warmup);
    else if (key == "min_samples")
      properties[key] = number_key_schema(kRepeatSection, key,
                                          "Always take at least this many samples.", d.min_samples);
    else if (key == "max_samples")
      properties[key] = number_key_schema(
          kRepeatSection, key,
          "Never more samples than this; at least min_samples (the runner checks).", d.max_samples);
    else if (key == "target_rsd")
      properties[key] = number_key_schema(
          kRepeatSection, key, "Stop once stddev / mean of the samples is at most this ...",
          d.target_rsd);
    else if (key == "min_seconds")
      properties[key] = number_key_schema(
          kRepeatSection, key, "... and the samples have timed at least this long together.",
          d.min_seconds);
    else if (key == "max_seconds")
      properties[key] = number_key_schema(
          kRepeatSection, key, "Give up on the rsd once sampling has taken this long (wall clock).",
          d.max_seconds);
    else
      throw std::logic_error("config_schema: repeat." + key + " is not described");
  }
  return {{"description",
           "Sampling rule of every point: warm-up runs, then samples until the relative standard "
           "deviation reaches target_rsd with at least min_seconds of timed samples, or "
           "max_seconds pass, within [min_samples, max_samples]. docs/measurement.md."},
          {"type", "object"},
          {"additionalProperties", false},
          {"properties", properties}};
}

Json verify_schema() {
  Json properties = Json::object();
  for (const auto& key : section_keys(kVerifySection)) {
    if (key == "seed")
      properties[key] = number_key_schema(kVerifySection, key,
                                          "Seed of the random inputs (uniform in [-1, 1)).", 42);
    else
      throw std::logic_error("config_schema: verify." + key + " is not described");
  }
  return {{"description", "How the inputs are made."},
          {"type", "object"},
          {"additionalProperties", false},
          {"properties", properties}};
}

Json slurm_schema() {
  Json properties = Json::object();
  for (const auto& key : section_keys(kSlurmSection)) {
    if (key == "cpus")
      properties[key] = number_key_schema(
          kSlurmSection, key, "CPUs per task. Default: the largest thread count of the CPU points.",
          nullptr);
    else if (key == "throttle")
      properties[key] =
          number_key_schema(kSlurmSection, key, "At most this many array tasks at once.", nullptr);
    else if (key == "gpus_per_task")
      properties[key] = number_key_schema(
          kSlurmSection, key,
          "GPUs per shard (#SBATCH --gpus-per-task): each shard spreads its points over them.",
          nullptr);
    else if (key == "extra")
      properties[key] = {
          {"description", "Further sbatch options, verbatim: one or a list."},
          {"anyOf", {def_ref("text"), {{"type", "array"}, {"items", def_ref("text")}}}}};
    else if (key == "time")
      properties[key] = {{"description",
                          "sbatch time limit: minutes, or quoted \"01:30:00\", \"2-00:00:00\", "
                          "UNLIMITED (unquoted, "
                          "YAML 1.1 reads 01:30:00 as a number)."},
                         {"anyOf",
                          {{{"type", "string"}, {"pattern", std::string(kTimeLimitPattern)}},
                           {{"type", "integer"}, {"minimum", 0}}}}};
    else if (key == "partition" || key == "account" || key == "qos" || key == "gres" ||
             key == "constraint")
      properties[key] = {{"description", fmt::format("sbatch --{}.", key)},
                         {"$ref", "#/$defs/text"}};
    else if (key == "mem")
      properties[key] = {
          {"description", "#SBATCH --mem per shard: 16G, 4000M, 0 (all of the node's memory)."},
          {"anyOf",
           {{{"type", "string"}, {"pattern", "^[0-9]{1,18}([KMGTkmgt][Bb]?)?$"}},
            {{"type", "integer"}, {"minimum", 0}}}}};
    else if (key == "exclude")
      properties[key] = {
          {"description",
           "#SBATCH --exclude: nodes to avoid, a Slurm hostlist such as node[01-03],gpu7."},
          {"type", "string"},
          {"pattern",
           "^[A-Za-z0-9._\\-]*(\\[[0-9,\\-]+\\][A-Za-z0-9._\\-]*)*(,[A-Za-z0-9._\\-]*(\\[[0-9,"
           "\\-]+\\][A-Za-z0-9._\\-]*)*)*$"}};
    else if (key == "setup")
      properties[key] = {
          {"description",
           "Shell lines run before the runner starts, in the shard and collect scripts, verbatim "
           "and in order (module load cuda/12.4, source ~/venv/bin/activate)."},
          {"type", "array"},
          {"items", {{"type", "string"}, {"not", {{"pattern", "[\\n\\r\\u0000]"}}}}}};
    else
      throw std::logic_error("config_schema: slurm." + key + " is not described");
  }
  return {
      {"description", "Defaults for `runner submit` (docs/slurm.md); its options override them."},
      {"type", "object"},
      {"additionalProperties", false},
      {"properties", properties}};
}

// An axis in a sweep or an exclude entry: one value, a range (axes of integers), or a list of
// values and ranges.
Json axis_values_schema(const AxisDescriptor& d) {
  Json one = def_ref(d.name);
  if (d.integers) one = {{"anyOf", {def_ref(d.name), def_ref(fmt::format("{}_range", d.name))}}};
  Json s = one_or_list(one);
  if (d.axis == Axis::block)
    s["description"] =
        "A block, or a list of blocks ([[32, 8], [16, 16]] or [\"32x8\", \"16x16\"]); [32, 8] "
        "alone is one block. Blocks take no ranges.";
  return s;
}

// A sweep (or exclude entry): axis → values.
Json sweep_schema(const char* description) {
  Json properties = Json::object();
  for (const auto& d : axis_descriptors()) properties[std::string(d.name)] = axis_values_schema(d);
  return {{"description", description},
          {"type", "object"},
          {"additionalProperties", false},
          {"minProperties", 1},
          {"properties", properties}};
}

Json baseline_schema() {
  Json properties = Json::object();
  for (const auto& d : axis_descriptors())
    if (d.axis != Axis::kernel) properties[std::string(d.name)] = def_ref(d.name);
  return {{"description",
           "The variant speedup is measured against, added for every problem of the config; "
           "optionally with fixed axis values (one each), e.g. {variant: omp_blocked, threads: "
           "1}. It names no kernel: it applies to each kernel that has the variant."},
          {"anyOf",
           {def_ref("variant"),
            {{"type", "object"},
             {"additionalProperties", false},
             {"required", {"variant"}},
             {"properties", properties}}}}};
}

std::vector<const KernelInfo*> kernels_by_name() {
  std::vector<const KernelInfo*> v;
  for (const auto& k : Registry::instance().kernels()) v.push_back(&k);
  std::sort(v.begin(), v.end(), [](const auto* a, const auto* b) { return a->name < b->name; });
  return v;
}

std::vector<std::string> variant_names(const KernelInfo& k) {
  std::vector<std::string> names;
  for (const auto& v : k.variants) names.push_back(v.name);
  std::sort(names.begin(), names.end());
  return names;
}

// "kernel: K" in a mapping, as an if-condition.
Json names_kernel(const std::string& kernel) {
  return {{"type", "object"},
          {"required", {"kernel"}},
          {"properties", {{"kernel", {{"const", kernel}}}}}};
}

// The variants of each kernel: a sweep or exclude entry that names one kernel, or a sweep that has
// none of its own under a top-level kernel, may only list that kernel's variants (a sweep over
// several kernels may list any of theirs, and an exclude entry without a kernel any variant of
// the config's kernels, as the runner allows).
//
// With plugins, a config names kernels and variants the registry does not know: the names are
// checked, here, only in a config without a `plugins:` key (its root's condition, below).
Json builtin_names(Json& defs) {
  Json sweep_rules = Json::array(), top_rules = Json::array();
  for (const KernelInfo* k : kernels_by_name()) {
    const std::string def = fmt::format("variant_of_{}", k->name);
    defs[def] = {{"description", fmt::format("A variant of {}: {}.", k->name, k->description)},
                 {"enum", variant_names(*k)}};
    const Json variants = {{"type", "object"},
                           {"properties", {{"variant", one_or_list(def_ref(def))}}}};
    sweep_rules.push_back({{"if", names_kernel(k->name)}, {"then", variants}});
    // Under a top-level `kernel: K`, each sweep without a kernel of its own is a sweep of K.
    Json sweep_of_k = {{"if", {{"type", "object"}, {"not", {{"required", {"kernel"}}}}}},
                       {"then", variants}};
    Json then = {{"type", "object"}};
    then["properties"]["sweeps"] = {{"type", "array"}, {"items", sweep_of_k}};
    top_rules.push_back({{"if", names_kernel(k->name)}, {"then", then}});
  }
  defs["known_kernel"] = {{"description",
                           "A kernel of this runner (a config with plugins may "
                           "name a family of its own)."},
                          {"enum", defs.at("kernel").at("examples")}};
  defs["known_variant"] = {{"description",
                            "A variant of this runner (a config with plugins may "
                            "name variants of its own)."},
                           {"enum", defs.at("variant").at("examples")}};
  Json known_axes = {{"kernel", one_or_list(def_ref("known_kernel"))},
                     {"variant", one_or_list(def_ref("known_variant"))}};
  Json entry = {{"properties", known_axes}, {"allOf", sweep_rules}};
  Json then = {
      {"properties",
       {{"kernel", def_ref("known_kernel")},
        {"variant", def_ref("known_variant")},
        {"baseline",
         {{"anyOf",
           {def_ref("known_variant"),
            {{"type", "object"}, {"properties", {{"variant", def_ref("known_variant")}}}}}}}},
        {"sweeps", {{"items", entry}}},
        {"exclude", {{"items", entry}}}}},
      {"allOf", top_rules}};
  return Json::array({{{"if", {{"not", {{"required", {"plugins"}}}}}}, {"then", then}}});
}

}  // namespace

Json config_schema() {
  Json defs = Json::object();
  // Text as YAML may type it (00:30:00 is a number to YAML 1.1); anyOf, not a union type, which
  // ajv's strict mode refuses.
  defs["text"] = {{"anyOf", {{{"type", "string"}}, {{"type", "number"}}, {{"type", "boolean"}}}}};
  for (const auto& d : axis_descriptors()) {
    Json one = {{"description", std::string(d.meaning)}};
    one.update(d.json_schema());
    defs[std::string(d.name)] = one;
    if (d.integers) defs[fmt::format("{}_range", d.name)] = range_json_schema(*d.integers);
  }
  defs["sweep"] = sweep_schema(
      "One sweep: axis → one value, a range ({pow2: [lo, hi]}, {range: [start, stop, step]}) or a "
      "non-empty list of values and ranges; the sweep is the Cartesian product of its axes, "
      "projected on the axes each variant uses.");
  defs["exclude"] =
      sweep_schema("Points matching every axis of the entry (any of its values) are removed.");
  const Json top_rules = builtin_names(defs);

  Json properties = Json::object();
  for (const auto& key : section_keys("")) {
    if (key == "experiment")
      properties[key] = {
          {"description", "Name of the experiment; also the folder results/<experiment>/."},
          {"anyOf",
           {{{"type", "string"},
             {"maxLength", kMaxExperimentName},
             {"pattern", std::string(kExperimentNamePattern)}},
            {{"type", "integer"}}}}};
    else if (key == "description")
      properties[key] = {{"description", "Free text, kept in the manifest."},
                         {"$ref", "#/$defs/text"}};
    else if (key == "repeat")
      properties[key] = repeat_schema();
    else if (key == "baseline")
      properties[key] = baseline_schema();
    else if (key == "verify")
      properties[key] = verify_schema();
    else if (key == "timeout_s")
      properties[key] = number_key_schema(
          "", key, "Seconds one point may take before it is stopped and recorded failed.", 120);
    else if (key == "sweeps")
      properties[key] = {{"description", "The matrix: the union of its sweeps."},
                         {"type", "array"},
                         {"minItems", 1},
                         {"items", def_ref("sweep")}};
    else if (key == "exclude")
      properties[key] = {{"description", "Points to leave out."},
                         {"type", "array"},
                         {"items", def_ref("exclude")}};
    else if (key == "slurm")
      properties[key] = slurm_schema();
    else if (key == "gpus")
      properties[key] = {
          {"description",
           "The GPUs of the run (docs/measurement.md, \"Several GPUs\"): all (the default: every "
           "GPU this process may use), a count (the first N), or a list of GPU indices or UUIDs "
           "(GPU-..., MIG-...). --gpus wins over it."},
          {"anyOf",
           {{{"const", "all"}},
            {{"type", "integer"}, {"minimum", 1}, {"maximum", 4096}},
            {{"type", "array"},
             {"minItems", 1},
             {"uniqueItems", true},
             {"items",
              {{"anyOf",
                {{{"type", "integer"}, {"minimum", 0}, {"maximum", 9999}},
                 {{"type", "string"}, {"pattern", "^(GPU|MIG)-."}}}}}}}}}};
    else if (key == "gpu_mode")
      properties[key] = {{"description",
                          "spread (the default): each point runs once, on one of the GPUs; each: "
                          "every GPU point runs on every GPU of the run, to compare them. "
                          "--gpu-mode wins over it."},
                         {"enum", {"spread", "each"}}};
    else if (key == "plugins")
      properties[key] = {
          {"description",
           "Your own kernels (docs/own-kernel.md): source files (.cu, .cpp; .hip in a HIP build) "
           "that the runner compiles with its own compiler and flags, or libraries built for it "
           "(.so), relative to this config. Their kernels and variants are named like the "
           "runner's own."},
          {"type", "array"},
          {"uniqueItems", true},
          {"items", {{"type", "string"}, {"pattern", "\\.(cu|cpp|cc|cxx|hip|so)$"}}}};
    else if (key == "measure")
      properties[key] = {{"description",
                          "Cache state of every sample (docs/measurement.md). cold: one execution "
                          "on a flushed L2 per sample; hot: the mean of a batch of back-to-back "
                          "executions. Default: each kernel's own. CPU points are always hot."},
                         {"enum",
                          {std::string(measure_mode_name(MeasureMode::cold)),
                           std::string(measure_mode_name(MeasureMode::hot))}}};
    else
      throw std::logic_error("config_schema: top-level key " + key + " is not described");
  }
  // A top-level axis is a default: one value, never a list or a range.
  for (const auto& d : axis_descriptors()) properties[std::string(d.name)] = def_ref(d.name);

  return {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
          {"$comment",
           "Generated by `runner schema` from the runner's config reader and kernel registry: do "
           "not edit; run build/bin/runner schema --out configs/schema.json"},
          {"title", "runner experiment config"},
          {"description",
           "An experiment matrix for `runner CONFIG` (docs/configuration.md). The runner is the "
           "final judge: `runner validate CONFIG` also checks what needs the expanded matrix (the "
           "axes each variant uses, sizes whose bytes overflow, excludes that match nothing)."},
          {"type", "object"},
          {"additionalProperties", false},
          {"required", {"experiment", "sweeps"}},
          {"properties", properties},
          {"allOf", top_rules},
          {"$defs", defs}};
}

std::string config_schema_text() {
  return config_schema().dump(2) + "\n";
}

}  // namespace runner
