#pragma once
// The JSON Schema of a config (configs/schema.json, printed by `runner schema`), generated from
// what the runner itself reads: every key of the config reader (runner/spec/config_keys.hpp),
// every axis with its values and ranges (runner/spec/axes.cpp), and every kernel and variant name
// of the registry, with the variants of each kernel. Editors (yaml-language-server) and tools
// (ajv, python-jsonschema) check and complete configs with it; the runner stays the final judge
// of what needs the expanded matrix (the axes a variant uses, sizes that overflow, excludes).
#include <string>

#include <nlohmann/json.hpp>

namespace runner {

nlohmann::ordered_json config_schema();

// config_schema() as the committed file holds it: two-space indents, a final newline.
std::string config_schema_text();

}  // namespace runner
