#include "runner/run/device_slots.hpp"

#include <poll.h>

#include <algorithm>

#include <fmt/format.h>

#include "runner/base/cpu_affinity.hpp"

namespace runner {

std::string cpu_list_text(const std::vector<int>& cpus) {
  std::vector<int> sorted = cpus;
  std::sort(sorted.begin(), sorted.end());
  std::string out = "[";
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    if (out.size() > 1) out += ',';
    out += j > i ? fmt::format("{}-{}", sorted[i], sorted[j]) : fmt::format("{}", sorted[i]);
    i = j + 1;
  }
  return out + "]";
}

std::string DeviceSlots::Slot::label() const {
  return gpu ? fmt::format("GPU {}", gpu->index) : "CPU";
}

DeviceSlots::DeviceSlots(const ExperimentSpec& spec, const std::vector<Point>& points,
                         const Registry& registry, const std::vector<GpuDevice>& gpus,
                         const std::string& visibility_variable)
    : spec_(spec), points_(points), registry_(registry) {
  Slot cpu;
  cpu.placement.visibility_variable = visibility_variable;
  if (!gpus.empty()) cpu.placement.visible_gpu = "";
  slots_.push_back(std::move(cpu));
  const std::vector<int> mine = cpus_at_start();
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    Slot s;
    s.id = static_cast<int>(g);
    s.gpu = gpus[g];
    s.placement.visibility_variable = visibility_variable;
    s.placement.visible_gpu = gpus[g].visibility;
    // The cores near its GPU when the node says which; else it keeps every core.
    s.placement.cpus = gpus[g].cpus.empty() ? mine : gpus[g].cpus;
    slots_.push_back(std::move(s));
  }
}

void DeviceSlots::spawn(Slot& slot) {
  slot.worker = std::make_unique<WorkerProcess>(spec_, points_, registry_, slot.placement,
                                                /*wait_for_hello=*/false);
  slot.hello = nullptr;
}

void DeviceSlots::start_missing() {
  for (auto& s : slots_)
    if (!s.worker || !s.worker->alive()) spawn(s);
  for (auto& s : slots_) {
    if (const auto& h = s.worker->hello()) {
      s.hello = *h;
      s.starts_failed_in_a_row = 0;
    } else {
      ++s.starts_failed_in_a_row;
    }
  }
}

bool DeviceSlots::ensure_worker(Slot& slot) {
  if (slot.worker && slot.worker->alive() && !slot.hello.is_null()) return true;
  spawn(slot);
  if (const auto& h = slot.worker->hello()) {
    slot.hello = *h;
    slot.starts_failed_in_a_row = 0;
    return true;
  }
  ++slot.starts_failed_in_a_row;
  return false;
}

void DeviceSlots::send(Slot& slot, std::size_t index, double timeout_s, double grace_s) {
  slot.point = index;
  slot.started = std::chrono::steady_clock::now();
  slot.worker->start(index, timeout_s, grace_s);
}

bool DeviceSlots::any_busy() const {
  return std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.busy(); });
}

std::vector<std::pair<DeviceSlots::Slot*, WorkerProcess::Outcome>> DeviceSlots::wait(int poll_ms) {
  std::vector<pollfd> fds;
  for (auto& s : slots_)
    if (s.busy() && s.worker->reply_fd() >= 0) fds.push_back({s.worker->reply_fd(), POLLIN, 0});
  if (!fds.empty()) ::poll(fds.data(), fds.size(), poll_ms);
  // Every busy worker steps (its time limit, a forwarded stop), whether it spoke or not.
  std::vector<std::pair<Slot*, WorkerProcess::Outcome>> finished;
  for (auto& s : slots_) {
    if (!s.busy()) continue;
    if (auto outcome = s.worker->poll(0)) {
      finished.emplace_back(&s, std::move(*outcome));
      if (!s.worker->alive()) s.hello = nullptr;
    }
  }
  return finished;
}

int DeviceSlots::stop_all() {
  std::vector<WorkerProcess*> workers;
  for (auto& s : slots_)
    if (s.worker) workers.push_back(s.worker.get());
  const int killed = stop_workers(workers);
  for (auto& s : slots_) {
    s.worker.reset();
    s.hello = nullptr;
    s.point.reset();
  }
  return killed;
}

}  // namespace runner
