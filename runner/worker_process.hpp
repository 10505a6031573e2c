#pragma once
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/config.hpp"
#include "runner/point.hpp"
#include "runner/registry.hpp"

namespace runner {

// A child process that runs points for the run's parent, which owns the records. The parent sends
// a point's index, the worker replies with its record; a point that crashes the worker (a
// segfault, an abort, a sticky CUDA error that leaves the context unusable) or outlives its
// timeout costs only that point: the parent records it as failed with the cause and starts a
// fresh worker. CUDA is initialised once per worker, never in the parent (a forked CUDA context
// is unusable).
//
// Protocol: one JSON object per line on each pipe.
//   worker → parent  {"hello": {environment}}  once at start
//                    {"record": {...}}          per point
//                    {"interrupted": true}      a stop was requested between samples
//   parent → worker  {"run": index}
class WorkerProcess {
 public:
  WorkerProcess(const ExperimentSpec& spec, const std::vector<Point>& points, const Registry& registry);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // The environment the worker reported (host, GPU...), or nullopt if it died before saying hello.
  const std::optional<nlohmann::json>& hello() const { return hello_; }

  struct Outcome {
    enum Kind { finished, interrupted, crashed, timed_out } kind = crashed;
    nlohmann::ordered_json record;  // kind == finished
    std::string cause;              // crashed / timed_out: "killed by SIGSEGV (Segmentation fault)"
  };
  // Sends the point and waits for its record, at most timeout_s (then the worker is killed).
  // While waiting, a stop request (SIGINT/SIGTERM) is forwarded to the worker, which abandons the
  // point between samples; after grace_s more it is killed.
  Outcome run(std::size_t index, double timeout_s, double grace_s);
  bool alive() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  void stop();

 private:
  std::optional<std::string> read_line(double timeout_s, bool* timed_out);
  std::string reap();  // waits for the child; describes how it ended
  pid_t pid_ = -1;
  int to_worker_ = -1, from_worker_ = -1;
  std::string buffer_;
  std::optional<nlohmann::json> hello_;
  bool forwarded_stop_ = false;
};

// Whether the current worker must exit after its point (set when a CUDA error leaves the context
// unusable). Checked by the worker loop after each record.
void mark_worker_poisoned();

}  // namespace runner
