#pragma once
// The outcomes a workload may throw while setting up or running a point (runner/api/workload.hpp).
#include <stdexcept>
#include <string>

namespace runner {

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

// A failure that leaves the process unfit to run more points (a sticky CUDA error: illegal
// address, trap, launch failure — the context is lost). The point fails and the worker process is
// replaced.
class WorkerPoisoned : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace runner
