// Worker processes (runner/run/worker_process.hpp): several alive at once, as a run over several
// GPUs has, each ends by itself when the parent closes its input.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "runner/api/registry.hpp"
#include "runner/run/worker_process.hpp"
#include "runner/spec/matrix.hpp"
#include "tests/unit/fake_kernels.hpp"

namespace runner {
namespace {

TEST(WorkerProcess, EachOfSeveralEndsWhenItsInputClosesNotKilled) {
  // A worker forked after another used to inherit the parent's end of that one's request pipe, so
  // closing it ended nothing: every worker but the last was killed a second later, one after
  // another (4 s at the end of a 4-GPU run). In the order a run stops them, and the reverse.
  const ExperimentSpec spec = testing::parse(
      "experiment: e\nkernel: transpose\nsweeps:\n  - {variant: omp_serial, size: 8}\n");
  const std::vector<Point> points = expand(spec, Registry::instance());
  for (const bool reverse : {false, true}) {
    std::vector<std::unique_ptr<WorkerProcess>> workers;
    for (int i = 0; i < 4; ++i)
      workers.push_back(std::make_unique<WorkerProcess>(spec, points, Registry::instance(),
                                                        WorkerPlacement{}, true));
    for (auto& w : workers) ASSERT_TRUE(w->alive());
    // A point first, as a run does: the worker must still end by itself after work.
    const auto outcome = workers[0]->run(0, 60, 3);
    EXPECT_EQ(outcome.kind, WorkerProcess::Outcome::finished) << outcome.cause;
    if (reverse) std::reverse(workers.begin(), workers.end());
    for (std::size_t i = 0; i < workers.size(); ++i)
      EXPECT_TRUE(workers[i]->stop()) << "worker " << i << (reverse ? " (reverse order)" : "");
  }
}

TEST(WorkerProcess, SeveralStoppedTogetherShareOneGraceAndTheStuckAreKilled) {
  // A run ends its workers together: every input closed, then one deadline for all. One after
  // another, each GPU worker's exit (its context released) added to the run's wall time, and
  // three stuck workers would cost three graces.
  const ExperimentSpec spec = testing::parse(
      "experiment: e\nkernel: transpose\nsweeps:\n  - {variant: omp_serial, size: 8}\n");
  const std::vector<Point> points = expand(spec, Registry::instance());
  std::vector<std::unique_ptr<WorkerProcess>> workers;
  for (int i = 0; i < 4; ++i)
    workers.push_back(std::make_unique<WorkerProcess>(spec, points, Registry::instance(),
                                                      WorkerPlacement{}, true));
  // Three cannot end (stopped: they never read the end of their input); one can.
  for (int i = 1; i < 4; ++i) ASSERT_EQ(::kill(workers[i]->pid(), SIGSTOP), 0);
  std::vector<WorkerProcess*> all;
  for (auto& w : workers) all.push_back(w.get());
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(stop_workers(all), 3);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(took, 0.9) << "the stuck workers were killed before their grace";
  EXPECT_LT(took, 2.5) << "one grace each, not one for all";
  for (auto& w : workers) EXPECT_FALSE(w->alive());
}

}  // namespace
}  // namespace runner
