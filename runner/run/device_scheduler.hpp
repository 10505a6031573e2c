#pragma once
// Which point each worker runs next, when a run has several device slots: one per GPU, and one for
// the CPU (docs/measurement.md, "Several GPUs"). Pure bookkeeping, no processes: the experiment
// loop (runner/run/experiment.cpp) asks it for work as workers free up and tells it how each point
// ended; tests/unit/device_scheduler_test.cpp drives it with fake devices.
//
// The rules:
//   - CPU points first, alone: no GPU point is handed out while a CPU point is waiting or running,
//     so that a GPU worker's host thread (which spins while its kernel runs) never shares the
//     cores a CPU point is timed on.
//   - GPU points in groups: the points compared with one another (one problem: its variants, its
//     reference such as `copy` or cuBLAS, a GPU baseline) form a group, and a group runs whole on
//     one GPU, in the run's order, so that no ratio ever mixes two GPUs.
//   - Groups go to GPUs as they free up, the biggest (by estimated cost) first.
//   - In `each` mode every GPU point is pinned to its GPU; nothing moves between GPUs.
//   - A GPU in trouble kFailuresToRetire times in a row (a worker that cannot start on it, a point
//     failed by a device error: ECC, a lost device; the loop decides what counts, a point's own
//     crash or wrong result does not) is taken out. Its groups move to the other GPUs, the group
//     it was in the middle of whole, its finished points included (they run again there, so that
//     the group's ratios stay on one GPU); pinned points that cannot move are handed back as
//     abandoned.
#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace runner {

struct SchedulingUnit {
  std::size_t index = 0;           // the point's index in the run
  bool gpu = false;                // runs on a GPU slot
  std::string group;               // points compared with one another: one GPU
  double cost = 0;                 // estimated seconds (runner/spec/matrix.hpp estimated_cost)
  std::optional<int> pinned_slot;  // `each` mode: this GPU slot only
};

class DeviceScheduler {
 public:
  static constexpr int kCpuSlot = -1;
  static constexpr int kFailuresToRetire = 3;

  // `gpu_slots` slots numbered 0..gpu_slots-1, plus kCpuSlot.
  DeviceScheduler(std::vector<SchedulingUnit> units, int gpu_slots);

  // The next point for `slot`, or nullopt when it has none now (CPU points still in flight, every
  // group started elsewhere, the slot taken out). Marks it started.
  std::optional<std::size_t> next(int slot);

  // How a started point ended: `fault` when the GPU is in trouble (a device error); a point that
  // ran, crashed its worker, timed out or failed verification is not the GPU's fault. Returns true
  // when this took the slot out.
  bool finished(int slot, std::size_t index, bool fault);

  // A worker could not even start on `slot`: a fault without a point. True when it took the slot
  // out.
  bool start_failed(int slot);

  // Points never to run: pinned to a GPU that was taken out, or GPU points once every GPU is out.
  // Each is handed out once, with the reason.
  std::vector<std::pair<std::size_t, std::string>> take_abandoned();

  bool retired(int slot) const;
  std::vector<int> retired_slots() const;
  // Nothing waiting and nothing running.
  bool done() const;
  // Points waiting (not started, not abandoned).
  std::size_t waiting() const;

 private:
  struct Group {
    std::string name;
    std::deque<std::size_t> points;    // not yet started, in the run's order
    std::vector<std::size_t> started;  // handed out, in order
    double cost = 0;
    std::optional<int> pinned_slot;
  };
  struct Slot {
    std::optional<std::size_t> group;  // the group it works through (index into groups_)
    int consecutive_faults = 0;
    bool retired = false;
    int running = 0;
  };
  Slot& slot(int s);
  const Slot& slot(int s) const;
  void retire(int s);
  std::optional<std::size_t> take_group(int s);

  std::deque<std::size_t> cpu_waiting_;
  int cpu_running_ = 0;
  std::vector<Group> groups_;      // biggest first
  std::vector<bool> group_taken_;  // a slot took it (or it was emptied)
  std::vector<Slot> gpu_slots_;
  Slot cpu_slot_;
  std::vector<std::pair<std::size_t, std::string>> abandoned_;
};

}  // namespace runner
