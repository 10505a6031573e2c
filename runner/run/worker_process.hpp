#pragma once
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/api/point.hpp"
#include "runner/api/registry.hpp"
#include "runner/run/running_clock.hpp"
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
// Where a worker runs: the one GPU it may see, and the cores it may use.
struct WorkerPlacement {
  // The value of `visibility_variable` (CUDA_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES) in the worker:
  // its GPU, which is then its device 0; "" hides every GPU (a worker of CPU points); unset: the
  // runner's own environment, unchanged.
  std::optional<std::string> visible_gpu;
  std::string visibility_variable = "CUDA_VISIBLE_DEVICES";
  std::vector<int> cpus;  // its CPU affinity; empty: the runner's own
};

class WorkerProcess {
 public:
  // Starts the worker and waits for its hello (wait_for_hello = false: hello() waits later, so
  // that several workers start their GPU runtimes at once).
  WorkerProcess(const ExperimentSpec& spec, const std::vector<Point>& points,
                const Registry& registry, const WorkerPlacement& placement = {},
                bool wait_for_hello = true);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // The environment the worker reported (host, GPU...), or nullopt if it died before saying hello.
  // Waits for it the first time (a stop request ends the wait).
  const std::optional<nlohmann::json>& hello();
  // Seconds from the worker's start to its hello (its GPU runtime's start-up, mostly); 0 before.
  double hello_seconds() const { return hello_seconds_; }

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

  // run() in two halves, for a loop over several workers: start() sends the point; poll() waits at
  // most poll_ms for the worker and returns the outcome once there is one (the time limit, the
  // forwarded stop and the grace are kept between calls). reply_fd() is what to poll() on.
  void start(std::size_t index, double timeout_s, double grace_s);
  std::optional<Outcome> poll(int poll_ms);
  bool busy() const { return in_flight_.has_value(); }
  int reply_fd() const { return from_worker_; }

  bool alive() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // Ends the worker: closes its input, which ends an idle worker, and kills it if it has not ended
  // kEndGrace later. True when it ended by itself. (Several at once: stop_workers.)
  bool stop();
  // stop() in two halves: close_input() lets the worker end; end_by() waits for that until the
  // deadline, then kills it. True when it ended by itself.
  void close_input();
  bool end_by(std::chrono::steady_clock::time_point deadline);
  static constexpr std::chrono::seconds kEndGrace{1};

 private:
  struct InFlight {
    double timeout_s = 0, grace_s = 0, deadline = 0;
    RunningClock clock{};              // braces: its default constructor is explicit
    std::optional<Outcome> immediate;  // the outcome without waiting (the worker was gone)
  };
  void wait_hello();
  Outcome kill_now(Outcome::Kind kind, std::string cause);
  // The next line from the worker; nullopt at EOF. Polls at most `poll_ms` for data, so the
  // caller's loop can keep its clocks and stop requests current; `idle` says nothing came.
  std::optional<std::string> read_line(int poll_ms, bool* idle);
  std::string reap();  // waits for the child; describes how it ended
  pid_t pid_ = -1;
  int to_worker_ = -1, from_worker_ = -1;
  std::string buffer_;
  std::optional<nlohmann::json> hello_;
  bool hello_waited_ = false;
  std::chrono::steady_clock::time_point started_at_ = std::chrono::steady_clock::now();
  double hello_seconds_ = 0;
  std::optional<InFlight> in_flight_;
  bool forwarded_stop_ = false;
  int last_exit_code_ = -1;  // of the reaped worker; -1 when it was killed by a signal
};

// Stops several workers at once: closes every input, then waits for them all against one deadline
// (kEndGrace), killing those still running. Returns how many had to be killed.
int stop_workers(const std::vector<WorkerProcess*>& workers);

// Whether the current worker must exit after its point (set when a CUDA error leaves the context
// unusable). Checked by the worker loop after each record.
void mark_worker_poisoned();

// Exit code of a worker that ended itself because its point ran past the time limit (the
// parent did not stop it: stopped, stuck or gone).
inline constexpr int kWorkerOverranExit = 124;
// Exit code of a worker that could not start (its watchdog thread could not be created).
inline constexpr int kWorkerCannotStartExit = 125;

}  // namespace runner
