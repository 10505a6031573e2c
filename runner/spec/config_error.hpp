#pragma once
#include <stdexcept>
#include <string>

namespace runner {

// A mistake in a config: always printed as "FILE:LINE:COL: what is wrong" and exit code 2.
// line and column are 1-based; 0 means the location is the whole file.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string file, int line, int column, const std::string& what)
      : std::runtime_error(what),
        file_(std::move(file)),
        message_(what),
        line_(line),
        column_(column) {}
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  // The one-line message users see.
  std::string located() const;
  // Lines printed after it as they are (a compiler's output for a plugin that does not build):
  // empty for a config mistake.
  const std::string& details() const { return details_; }
  ConfigError& with_details(std::string details) {
    details_ = std::move(details);
    return *this;
  }

 private:
  std::string file_;
  std::string message_;  // what() in full: a NUL in a quoted name does not end it
  int line_, column_;
  std::string details_;
};

}  // namespace runner
