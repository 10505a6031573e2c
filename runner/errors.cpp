#include "runner/errors.hpp"

#include <fmt/format.h>

namespace runner {

std::string ConfigError::located() const {
  if (line_ <= 0) return fmt::format("{}: {}", file_, what());
  return fmt::format("{}:{}:{}: {}", file_, line_, column_, what());
}

}  // namespace runner
