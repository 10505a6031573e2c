#pragma once
// Test doubles for measure(): a clock that reads back scripted durations and a workload that logs
// every call the measurement loop makes, so tests can assert the exact order.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runner/api/workload.hpp"

namespace runner::testing {

// Reads back a scripted list of durations, one per stop_ms() (1.0 once the list is used up). The
// list and its cursor belong to the workload, so that its warm-up and sample clocks read on
// where the other stopped.
class ScriptedClock final : public SampleClock {
 public:
  ScriptedClock(const std::vector<double>* times, std::size_t* next, std::string* log)
      : times_(times), next_(next), log_(log) {}
  void start() override { *log_ += "S"; }
  double stop_ms() override {
    *log_ += "T";
    const double t = *next_ < times_->size() ? (*times_)[*next_] : 1.0;
    ++*next_;
    return t;
  }

 private:
  const std::vector<double>* times_;
  std::size_t* next_;
  std::string* log_;
};

// Records every call in order: P poison, F cache flush (a cold prepare_sample), S start, R run,
// T stop, V verify. Fails verification from run number `wrong_from` on (1-based; 0: never). A
// workload made with can_flush = false behaves like a CPU one: it cannot empty its caches, so
// every sample is hot.
class ScriptedWorkload final : public Workload {
 public:
  ScriptedWorkload(std::vector<double> times, int wrong_from, bool can_flush = true)
      : times_(std::move(times)), wrong_from_(wrong_from), can_flush_(can_flush) {}
  void poison_output() override { log += "P"; }
  MeasureMode prepare_sample(MeasureMode mode) override {
    if (!can_flush_) return MeasureMode::hot;
    if (mode == MeasureMode::cold) log += "F";
    return mode;
  }
  void run() override {
    log += "R";
    ++runs;
  }
  Verification verify() override {
    log += "V";
    Verification v;
    v.tolerance = 1e-6;
    v.passed = wrong_from_ == 0 || runs < wrong_from_;
    v.max_rel_err = v.passed ? 1e-9 * runs : 0.5;
    if (!v.passed) v.message = "wrong";
    return v;
  }
  std::unique_ptr<SampleClock> make_clock() override {
    return std::make_unique<ScriptedClock>(&times_, &next_time_, &log);
  }

  std::string log;
  int runs = 0;

 private:
  std::vector<double> times_;
  std::size_t next_time_ = 0;
  int wrong_from_;
  bool can_flush_;
};

}  // namespace runner::testing
