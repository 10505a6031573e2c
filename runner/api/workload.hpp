#pragma once
#include <memory>
#include <optional>

#include "runner/api/json.hpp"

#include "runner/api/measure_mode.hpp"
#include "runner/api/verification.hpp"

namespace runner {

// Measures one execution of a workload. CPU workloads use the host's steady clock; CUDA workloads
// record events on their stream (runner/api/cuda/detail/event_clock.hpp), so launch overhead and
// host work never enter the kernel time.
class SampleClock {
 public:
  virtual ~SampleClock() = default;
  virtual void start() = 0;
  // Returns the elapsed milliseconds since start(), after the timed work has finished.
  virtual double stop_ms() = 0;
  // Timed regions whose start the clock could not hold back until the region was enqueued
  // (runner/api/cuda/detail/launch_guard.hpp); nullopt for a clock that has no such guard (the
  // CPU's).
  virtual std::optional<int> guard_timeouts() const { return std::nullopt; }
};

class SteadyClock final : public SampleClock {
 public:
  void start() override;
  double stop_ms() override;

 private:
  long long start_ns_ = 0;
};

// One point's executable state: buffers allocated and inputs filled once in the constructor
// (or setup), reused by every sample. The measurement loop (runner/measure/sampling.hpp) owns the
// order:
//   poison_output(); prepare_sample(mode); clock.start(); run() [× batch]; clock.stop_ms(); ...
//   verify();
// A constructor or setup() may throw PointSkipped / PointInvalid (runner/api/errors.hpp); any other
// exception fails the point with its message.
class Workload {
 public:
  virtual ~Workload() = default;
  // Fills the outputs with NaN (or another value no correct kernel writes), untimed, so that an
  // element the kernel forgot to write fails verification instead of passing on stale data.
  virtual void poison_output() = 0;
  // Untimed, after poison_output() and before a sample's clock starts: puts the caches in the state
  // `mode` asks for and returns the mode the sample is really taken in. Cold: CUDA workloads flush
  // the L2. A workload that cannot empty its caches (the CPU ones: the runner does not flush a
  // CPU's caches) returns hot, and the record says hot.
  virtual MeasureMode prepare_sample(MeasureMode /*mode*/) { return MeasureMode::hot; }
  // One execution of the variant. CUDA workloads enqueue on their stream and return.
  virtual void run() = 0;
  // Compares the current output with the reference of the point's problem.
  virtual Verification verify() = 0;
  // The clock of the first run and the warm-ups.
  virtual std::unique_ptr<SampleClock> make_clock() { return std::make_unique<SteadyClock>(); }
  // The clock of the timed samples. CUDA workloads guard its start
  // (runner/api/cuda/detail/event_clock.hpp); the warm-up clock has no guard because the first runs
  // may wait for the stream themselves (lazy module loading, a library's first call) and would only
  // wait out the guard's timeout.
  virtual std::unique_ptr<SampleClock> make_sample_clock() { return make_clock(); }
  // Figures that are not kernel time but belong in the record, e.g. {"h2d_ms": 1.2, "d2h_ms": 0.9}.
  virtual nlohmann::json extra_fields() const;  // {} here
};

// The data of one problem (kernel × size × dtype × ...): inputs generated from the seed and the
// double-precision reference output. Built once and shared by every variant that runs on it.
class Problem {
 public:
  virtual ~Problem() = default;
};

}  // namespace runner
