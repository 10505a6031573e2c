#pragma once
// The workers of a run, one per device slot (runner/run/device_scheduler.hpp): one for the CPU
// points, one per GPU of the run, each started with only its GPU visible and pinned to the cores
// near it (runner/measure/gpu_devices.hpp). Starts them together (their GPU runtimes initialise
// at once), hands each its point, and waits for whichever finishes first; the experiment loop
// (runner/run/experiment.cpp) decides what runs where and writes the records.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/measure/gpu_devices.hpp"
#include "runner/run/device_scheduler.hpp"
#include "runner/run/worker_process.hpp"

namespace runner {

class DeviceSlots {
 public:
  struct Slot {
    int id = DeviceScheduler::kCpuSlot;  // the scheduler's slot: kCpuSlot, or the GPU's position
    std::optional<GpuDevice> gpu;        // the GPU it measures (none for the CPU slot)
    WorkerPlacement placement;
    std::unique_ptr<WorkerProcess> worker;
    std::optional<std::size_t> point;  // the point in flight
    std::chrono::steady_clock::time_point started;
    nlohmann::json hello;  // its current worker's hello (null before one said hello)
    int starts_failed_in_a_row = 0;
    bool busy() const { return point.has_value(); }
    // "GPU 2" / "CPU": how progress lines and messages name it.
    std::string label() const;
  };

  // A CPU slot always; a GPU slot per device of `gpus`. Without GPUs the CPU slot's worker keeps
  // the runner's environment (its GPU points are recorded skipped with the reason, as in a run on
  // a machine without a GPU); with GPUs it sees none (`visibility_variable` empty), so that it
  // never holds a context on a GPU another worker measures.
  DeviceSlots(const ExperimentSpec& spec, const std::vector<Point>& points,
              const Registry& registry, const std::vector<GpuDevice>& gpus,
              const std::string& visibility_variable);
  ~DeviceSlots() { stop_all(); }
  DeviceSlots(const DeviceSlots&) = delete;
  DeviceSlots& operator=(const DeviceSlots&) = delete;

  std::vector<Slot>& slots() { return slots_; }
  Slot& cpu() { return slots_.front(); }

  // Starts the worker of every slot that has none, all at once, then waits for their hellos.
  void start_missing();
  // A live worker in `slot` (a new one when the last ended); false when it died before its hello.
  bool ensure_worker(Slot& slot);
  // Sends `index` to the slot's worker.
  void send(Slot& slot, std::size_t index, double timeout_s, double grace_s);
  // Waits at most `poll_ms` for any busy slot; the slots that finished, with their outcomes.
  std::vector<std::pair<Slot*, WorkerProcess::Outcome>> wait(int poll_ms);
  bool any_busy() const;
  // Ends every worker, all at once (runner/run/worker_process.hpp, stop_workers); the number
  // that had to be killed.
  int stop_all();

 private:
  void spawn(Slot& slot);
  const ExperimentSpec& spec_;
  const std::vector<Point>& points_;
  const Registry& registry_;
  std::vector<Slot> slots_;
};

// "[0-3,8,10-11]": a list of cores in the kernel's cpuset syntax, for records.
std::string cpu_list_text(const std::vector<int>& cpus);

}  // namespace runner
