// `runner columns`: the column table of records.csv / records.jsonl, for people and for scripts.
#include <fmt/format.h>

#include "runner/cli/commands.hpp"
#include "runner/results/columns.hpp"

namespace runner::cli {

int columns_command(const std::string& format) {
  fmt::print("{}", format_columns(format));
  return 0;
}

}  // namespace runner::cli
