#include "runner/run/device_scheduler.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace runner {

DeviceScheduler::DeviceScheduler(std::vector<SchedulingUnit> units, int gpu_slots)
    : gpu_slots_(static_cast<std::size_t>(std::max(gpu_slots, 0))) {
  std::map<std::pair<std::string, int>, std::size_t> group_of;  // (group, pinned or -1) -> index
  for (const auto& u : units) {
    if (!u.gpu) {
      cpu_waiting_.push_back(u.index);
      continue;
    }
    const auto key = std::make_pair(u.group, u.pinned_slot.value_or(-1));
    auto it = group_of.find(key);
    if (it == group_of.end()) {
      it = group_of.emplace(key, groups_.size()).first;
      groups_.push_back({u.group, {}, {}, 0.0, u.pinned_slot});
    }
    Group& g = groups_[it->second];
    g.points.push_back(u.index);
    g.cost += u.cost;
  }
  // The biggest first (a stable sort keeps the run's order among equals).
  std::stable_sort(groups_.begin(), groups_.end(),
                   [](const Group& a, const Group& b) { return a.cost > b.cost; });
  group_taken_.assign(groups_.size(), false);
  if (gpu_slots_.empty())
    for (auto& g : groups_) {
      for (std::size_t i : g.points) abandoned_.emplace_back(i, "no GPU was selected for this run");
      g.points.clear();
    }
}

DeviceScheduler::Slot& DeviceScheduler::slot(int s) {
  if (s == kCpuSlot) return cpu_slot_;
  if (s < 0 || static_cast<std::size_t>(s) >= gpu_slots_.size())
    throw std::out_of_range(fmt::format("DeviceScheduler: no slot {}", s));
  return gpu_slots_[static_cast<std::size_t>(s)];
}

const DeviceScheduler::Slot& DeviceScheduler::slot(int s) const {
  return const_cast<DeviceScheduler*>(this)->slot(s);
}

std::optional<std::size_t> DeviceScheduler::take_group(int s) {
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    if (group_taken_[g] || groups_[g].points.empty()) continue;
    if (groups_[g].pinned_slot && *groups_[g].pinned_slot != s) continue;
    group_taken_[g] = true;
    return g;
  }
  return std::nullopt;
}

std::optional<std::size_t> DeviceScheduler::next(int s) {
  Slot& sl = slot(s);
  if (sl.retired) return std::nullopt;
  if (s == kCpuSlot) {
    if (cpu_waiting_.empty()) return std::nullopt;
    const std::size_t i = cpu_waiting_.front();
    cpu_waiting_.pop_front();
    ++cpu_running_;
    ++sl.running;
    return i;
  }
  // CPU points first, alone.
  if (!cpu_waiting_.empty() || cpu_running_ > 0) return std::nullopt;
  if (!sl.group || groups_[*sl.group].points.empty()) sl.group = take_group(s);
  if (!sl.group) return std::nullopt;
  Group& g = groups_[*sl.group];
  const std::size_t i = g.points.front();
  g.points.pop_front();
  g.started.push_back(i);
  ++sl.running;
  return i;
}

bool DeviceScheduler::finished(int s, std::size_t /*index*/, bool fault) {
  Slot& sl = slot(s);
  --sl.running;
  if (s == kCpuSlot) {
    --cpu_running_;
    return false;
  }
  if (!fault) {
    sl.consecutive_faults = 0;
    return false;
  }
  if (++sl.consecutive_faults < kFailuresToRetire || sl.retired) return false;
  retire(s);
  return true;
}

bool DeviceScheduler::start_failed(int s) {
  if (s == kCpuSlot) return false;  // the CPU slot has nowhere else to go: the loop gives up
  Slot& sl = slot(s);
  if (++sl.consecutive_faults < kFailuresToRetire || sl.retired) return false;
  retire(s);
  return true;
}

void DeviceScheduler::retire(int s) {
  Slot& sl = slot(s);
  sl.retired = true;
  // The group it was in: back whole for another GPU, its finished points first again, so that
  // its ratios (to its reference, its baseline) come from one GPU.
  if (sl.group) {
    Group& g = groups_[*sl.group];
    g.points.insert(g.points.begin(), g.started.begin(), g.started.end());
    g.started.clear();
    group_taken_[*sl.group] = false;
  }
  sl.group.reset();
  bool any_left = false;
  for (const auto& other : gpu_slots_) any_left = any_left || !other.retired;
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    Group& group = groups_[g];
    const bool stranded = !any_left || (group.pinned_slot && *group.pinned_slot == s);
    if (!stranded || group.points.empty()) continue;
    for (std::size_t i : group.points)
      abandoned_.emplace_back(
          i, any_left ? fmt::format("GPU {} was taken out after {} failures in a row", s,
                                    kFailuresToRetire)
                      : fmt::format("every GPU was taken out (GPU {} last, after {} failures in "
                                    "a row)",
                                    s, kFailuresToRetire));
    group.points.clear();
  }
}

std::vector<std::pair<std::size_t, std::string>> DeviceScheduler::take_abandoned() {
  return std::exchange(abandoned_, {});
}

bool DeviceScheduler::retired(int s) const {
  return slot(s).retired;
}

std::vector<int> DeviceScheduler::retired_slots() const {
  std::vector<int> out;
  for (std::size_t s = 0; s < gpu_slots_.size(); ++s)
    if (gpu_slots_[s].retired) out.push_back(static_cast<int>(s));
  return out;
}

std::size_t DeviceScheduler::waiting() const {
  std::size_t n = cpu_waiting_.size();
  for (const auto& g : groups_) n += g.points.size();
  return n;
}

bool DeviceScheduler::done() const {
  if (waiting() > 0 || cpu_running_ > 0) return false;
  for (const auto& s : gpu_slots_)
    if (s.running > 0) return false;
  return abandoned_.empty();
}

}  // namespace runner
