#pragma once
// Why a command cannot go on, beyond config mistakes (runner/spec/config_error.hpp): each maps to
// one exit code (runner/base/exit_codes.hpp).
#include <stdexcept>
#include <string>

namespace runner {

// A request the runner will not carry out as given, found before any work: --out holds another
// run and --resume was not given, say. Exit code 2, like a config error; nothing is written.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The run cannot go on here and now, through no fault of a point: the output folder is locked by
// another runner or cannot be written (full disk, permissions), --resume found results of another
// config, build or device, no worker process could start. Exit code 3 (runner/base/exit_codes.hpp).
class Refused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace runner
