// `runner schema [--out FILE]`: the JSON Schema of configs, generated from this binary's config
// reader and registry (runner/spec/config_schema.hpp). configs/schema.json is its output, and a
// test (config_schema_is_current) fails when the committed file is stale.
#include <fmt/format.h>

#include "runner/base/durable_file.hpp"
#include "runner/cli/commands.hpp"
#include "runner/spec/config_schema.hpp"

namespace runner::cli {

int schema_command(const std::string& out) {
  const std::string text = config_schema_text();
  if (out.empty() || out == "-")
    fmt::print("{}", text);
  else
    write_file_atomically(out, text);
  return 0;
}

}  // namespace runner::cli
