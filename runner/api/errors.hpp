#pragma once
#include <stdexcept>
#include <string>

namespace runner {

// A mistake in a config: always printed as "FILE:LINE:COL: what is wrong" and exit code 2.
// line and column are 1-based; 0 means the location is the whole file.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string file, int line, int column, const std::string& what)
      : std::runtime_error(what), file_(std::move(file)), line_(line), column_(column) {}
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  // The one-line message users see.
  std::string located() const;

 private:
  std::string file_;
  int line_, column_;
};

// Thrown by a workload while setting up a point: the point is recorded with that status and the
// reason, and the run goes on. `skipped`: the hardware or memory for it is absent. `invalid`: the
// point asks for something the device cannot do (a block of 2048 threads, say).
class PointSkipped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class PointInvalid : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A request the runner will not carry out as given, found before any work: --out holds another
// run and --resume was not given, say. Exit code 2, like a config error; nothing is written.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The run cannot go on here and now, through no fault of a point: the output folder is locked by
// another runner or cannot be written (full disk, permissions), --resume found results of another
// config, build or device, no worker process could start. Exit code 3 (runner/exit_codes.hpp).
class Refused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A failure that leaves the process unfit to run more points (a sticky CUDA error: illegal
// address, trap, launch failure — the context is lost). The point fails and the worker process is
// replaced.
class WorkerPoisoned : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace runner
