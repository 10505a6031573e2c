#include "runner/spec/config_error.hpp"

#include <string_view>

#include <fmt/format.h>

namespace runner {

namespace {
// Messages quote what the config says (keys, names, values), and a quoted YAML key may hold a
// newline or a terminal escape: show control characters escaped so that the message stays one
// line and the terminal is not driven by a config file.
std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (u < 0x20 || u == 0x7f) out += fmt::format("\\x{:02x}", u);
    else out += c;
  }
  return out;
}
}  // namespace

std::string ConfigError::located() const {
  if (line_ <= 0) return fmt::format("{}: {}", one_line(file_), one_line(what()));
  return fmt::format("{}:{}:{}: {}", one_line(file_), line_, column_, one_line(what()));
}

}  // namespace runner
