#include "runner/spec/config_error.hpp"

#include <string_view>

#include <fmt/format.h>

#include "runner/base/printable.hpp"

namespace runner {

// Messages quote what the config says (keys, names, values), and a quoted YAML key may hold a
// newline, a NUL, a terminal escape or a bidi override: shown escaped, so that the message stays
// one line, says everything, and the terminal is not driven by a config file.
std::string ConfigError::located() const {
  if (line_ <= 0) return fmt::format("{}: {}", printable(file_), printable(message_));
  return fmt::format("{}:{}:{}: {}", printable(file_), line_, column_, printable(message_));
}

}  // namespace runner
