#pragma once
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/api/point.hpp"
#include "runner/api/registry.hpp"
#include "runner/spec/config.hpp"

namespace runner {

// A child process that runs points for the run's parent, which owns the records. The parent sends
// a point's index, the worker replies with its record; a point that crashes the worker (a
// segfault, an abort, a sticky CUDA error that leaves the context unusable) or outlives its
// timeout costs only that point: the parent records it as failed with the cause and starts a
// fresh worker. CUDA is initialised once per worker, never in the parent (a forked CUDA context
// is unusable).
//
// A worker never outlives its parent (it is killed when the parent dies, however that happens)
// and enforces the point's time limit itself too, a few seconds after the parent would: a worker
// whose parent is stopped or stuck does not compute on without limit. Time a process spends
// stopped (SIGSTOP, Ctrl-Z) does not count against a time limit (runner/run/running_clock.hpp).
//
// Protocol: one JSON object per line on each pipe.
//   worker → parent  {"hello": {environment}}  once at start
//                    {"record": {...}}          per point
//                    {"interrupted": SIGNAL}    a stop signal reached the worker (forwarded by
//                                               the parent, or sent to the worker alone) and it
//                                               abandoned the point between samples
//   parent → worker  {"run": index, "timeout_s": seconds}
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
    int signal = 0;                 // interrupted: the stop signal the worker reported, if any
  };
  // Sends the point and waits for its record, at most timeout_s of running time (then the worker
  // is killed). While waiting, a stop request of this process (runner/base/interrupt.hpp) is
  // forwarded to the worker as SIGTERM, and the worker abandons the point between samples; after
  // grace_s more, or at once on a second stop signal, it is killed.
  Outcome run(std::size_t index, double timeout_s, double grace_s);
  bool alive() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  void stop();

 private:
  // The next line from the worker; nullopt at EOF. Polls at most `poll_ms` for data, so the
  // caller's loop can keep its clocks and stop requests current; `idle` says nothing came.
  std::optional<std::string> read_line(int poll_ms, bool* idle);
  std::string reap();  // waits for the child; describes how it ended
  pid_t pid_ = -1;
  int to_worker_ = -1, from_worker_ = -1;
  std::string buffer_;
  std::optional<nlohmann::json> hello_;
  bool forwarded_stop_ = false;
  int last_exit_code_ = -1;  // of the reaped worker; -1 when it was killed by a signal
};

// Whether the current worker must exit after its point (set when a CUDA error leaves the context
// unusable). Checked by the worker loop after each record.
void mark_worker_poisoned();

// Exit code of a worker that ended itself because its point ran past the time limit (the
// parent did not stop it: stopped, stuck or gone).
inline constexpr int kWorkerOverranExit = 124;
// Exit code of a worker that could not start (its watchdog thread could not be created).
inline constexpr int kWorkerCannotStartExit = 125;

}  // namespace runner
