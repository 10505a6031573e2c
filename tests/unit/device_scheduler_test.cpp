// The scheduler over device slots (runner/run/device_scheduler.hpp) with fake devices: no process,
// no GPU. A small simulation hands points to slots as they free up, the way the experiment loop
// does, and the tests check the rules: CPU points first and alone, a group whole on one GPU, the
// biggest group first, `each` mode's pinning, a GPU taken out after failures in a row with its
// work moved and nothing lost.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "runner/run/device_scheduler.hpp"

namespace runner {
namespace {

constexpr int kCpu = DeviceScheduler::kCpuSlot;

SchedulingUnit cpu(std::size_t i) {
  return {i, false, "", 1.0, std::nullopt};
}
SchedulingUnit gpu(std::size_t i, const std::string& group, double cost = 1.0,
                   std::optional<int> pinned = std::nullopt) {
  return {i, true, group, cost, pinned};
}

// Runs everything to the end with `slots` GPUs free at once, one point per slot per round;
// `fault(slot, index)` says which finished points were the GPU's fault. Returns each point's slots
// in the order they ran it.
std::map<std::size_t, std::vector<int>> simulate(
    DeviceScheduler& s, int slots, const std::function<bool(int, std::size_t)>& fault = {},
    std::vector<std::pair<std::size_t, std::string>>* abandoned = nullptr) {
  std::map<std::size_t, std::vector<int>> ran;
  for (int round = 0; round < 10000 && !s.done(); ++round) {
    std::vector<std::pair<int, std::size_t>> in_flight;
    for (int slot = kCpu; slot < slots; ++slot)
      if (auto i = s.next(slot)) in_flight.emplace_back(slot, *i);
    for (auto [slot, i] : in_flight) {
      ran[i].push_back(slot);
      s.finished(slot, i, fault && fault(slot, i));
    }
    for (auto& a : s.take_abandoned())
      if (abandoned) abandoned->push_back(a);
    if (in_flight.empty() && !s.done() && s.waiting() == 0) break;
  }
  return ran;
}

TEST(DeviceScheduler, EveryPointRunsOnceAndEachGroupOnOneGpu) {
  std::vector<SchedulingUnit> units;
  for (std::size_t i = 0; i < 40; ++i) units.push_back(gpu(i, "problem" + std::to_string(i / 4)));
  DeviceScheduler s(units, 4);
  const auto ran = simulate(s, 4);
  ASSERT_EQ(ran.size(), 40u);
  std::map<std::size_t, std::set<int>> group_slots;
  std::set<int> used;
  for (const auto& [i, slots] : ran) {
    ASSERT_EQ(slots.size(), 1u) << "point " << i << " ran once";
    group_slots[i / 4].insert(slots[0]);
    used.insert(slots[0]);
  }
  for (const auto& [g, slots] : group_slots) EXPECT_EQ(slots.size(), 1u) << "group " << g;
  EXPECT_EQ(used.size(), 4u) << "every GPU got work";
  EXPECT_TRUE(s.done());
}

TEST(DeviceScheduler, CpuPointsRunFirstAndAlone) {
  DeviceScheduler s({gpu(0, "a"), cpu(1), gpu(2, "b"), cpu(3)}, 2);
  EXPECT_FALSE(s.next(0)) << "no GPU point while CPU points wait";
  const auto c1 = s.next(kCpu);
  ASSERT_TRUE(c1);
  EXPECT_EQ(*c1, 1u);
  EXPECT_FALSE(s.next(1));
  s.finished(kCpu, *c1, false);
  const auto c2 = s.next(kCpu);
  ASSERT_TRUE(c2);
  EXPECT_FALSE(s.next(0)) << "nor while one runs";
  s.finished(kCpu, *c2, false);
  EXPECT_FALSE(s.next(kCpu));
  EXPECT_TRUE(s.next(0));
  EXPECT_TRUE(s.next(1));
}

TEST(DeviceScheduler, TheBiggestGroupGoesFirstAndAGroupKeepsTheRunsOrder) {
  DeviceScheduler s({gpu(0, "small", 1), gpu(1, "big", 5), gpu(2, "big", 5), gpu(3, "mid", 3)}, 1);
  std::vector<std::size_t> order;
  while (auto i = s.next(0)) {
    order.push_back(*i);
    s.finished(0, *i, false);
  }
  EXPECT_EQ(order, (std::vector<std::size_t>{1, 2, 3, 0}));
}

TEST(DeviceScheduler, EachModePinsEveryPointToItsGpu) {
  std::vector<SchedulingUnit> units;
  for (std::size_t i = 0; i < 12; ++i)
    units.push_back(gpu(i, "p" + std::to_string(i % 3), 1.0, int(i % 4)));
  DeviceScheduler s(units, 4);
  const auto ran = simulate(s, 4);
  ASSERT_EQ(ran.size(), 12u);
  for (const auto& [i, slots] : ran) EXPECT_EQ(slots, (std::vector<int>{int(i % 4)})) << i;
}

TEST(DeviceScheduler, AFailingGpuIsTakenOutAndItsGroupRunsWholeElsewhere) {
  std::vector<SchedulingUnit> units;
  for (std::size_t i = 0; i < 24; ++i) units.push_back(gpu(i, "g" + std::to_string(i / 6)));
  DeviceScheduler s(units, 2);
  // GPU 1 is in trouble from the start: every point it runs is a device fault.
  const auto ran = simulate(s, 2, [](int slot, std::size_t) { return slot == 1; });
  EXPECT_TRUE(s.retired(1));
  EXPECT_FALSE(s.retired(0));
  EXPECT_EQ(s.retired_slots(), std::vector<int>{1});
  ASSERT_EQ(ran.size(), 24u) << "nothing lost";
  for (const auto& [i, slots] : ran) {
    EXPECT_EQ(slots.back(), 0) << "point " << i << " ends on the good GPU";
    EXPECT_LE(slots.size(), 2u);
  }
  // The group GPU 1 was in ran again whole on GPU 0, its first points included.
  std::set<std::size_t> moved;
  for (const auto& [i, slots] : ran)
    if (slots.size() == 2) moved.insert(i / 6);
  EXPECT_EQ(moved.size(), 1u);
  for (std::size_t g : moved)
    for (std::size_t i = g * 6; i < g * 6 + 6; ++i) EXPECT_EQ(ran.at(i).back(), 0);
}

TEST(DeviceScheduler, FaultsMustComeInARow) {
  DeviceScheduler s({gpu(0, "a"), gpu(1, "a"), gpu(2, "a"), gpu(3, "a"), gpu(4, "a")}, 1);
  int n = 0;
  while (auto i = s.next(0)) s.finished(0, *i, ++n % 3 != 0);  // two faults, then a good point
  EXPECT_FALSE(s.retired(0));
  EXPECT_TRUE(s.done());
}

TEST(DeviceScheduler, PinnedPointsOfARetiredGpuAndEverythingWhenNoneIsLeftAreAbandoned) {
  std::vector<SchedulingUnit> units = {gpu(0, "a", 1, 0), gpu(1, "a", 1, 1), gpu(2, "a", 1, 1),
                                       gpu(3, "a", 1, 1), gpu(4, "a", 1, 1)};
  DeviceScheduler s(units, 2);
  std::vector<std::pair<std::size_t, std::string>> abandoned;
  simulate(
      s, 2, [](int slot, std::size_t) { return slot == 1; }, &abandoned);
  EXPECT_TRUE(s.retired(1));
  ASSERT_FALSE(abandoned.empty());
  for (const auto& [i, why] : abandoned) {
    EXPECT_NE(i, 0u);
    EXPECT_NE(why.find("GPU 1 was taken out after 3 failures in a row"), std::string::npos) << why;
  }
  EXPECT_TRUE(s.done());

  DeviceScheduler all_out({gpu(0, "a"), gpu(1, "b"), gpu(2, "c")}, 1);
  EXPECT_FALSE(all_out.start_failed(0));
  EXPECT_FALSE(all_out.start_failed(0));
  EXPECT_TRUE(all_out.start_failed(0));
  const auto gone = all_out.take_abandoned();
  EXPECT_EQ(gone.size(), 3u);
  EXPECT_NE(gone[0].second.find("every GPU was taken out"), std::string::npos) << gone[0].second;
  EXPECT_TRUE(all_out.done());
}

TEST(DeviceScheduler, WithoutGpusTheGpuPointsAreAbandonedAndCpuPointsRun) {
  DeviceScheduler s({cpu(0), gpu(1, "a")}, 0);
  const auto gone = s.take_abandoned();
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0].first, 1u);
  const auto i = s.next(kCpu);
  ASSERT_TRUE(i);
  s.finished(kCpu, *i, false);
  EXPECT_TRUE(s.done());
}

}  // namespace
}  // namespace runner
