#include "runner/cli/terminal.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string_view>

namespace runner::cli {

namespace {

bool dumb_terminal() {
  const char* term = std::getenv("TERM");
  return term && std::string_view(term) == "dumb";
}

}  // namespace

bool colour_allowed(int fd) {
  // no-color.org: present and not empty disables colour, whatever its value.
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  return isatty(fd) && !dumb_terminal();
}

bool rewritable_lines(int fd) {
  return isatty(fd) && !dumb_terminal();
}

}  // namespace runner::cli
