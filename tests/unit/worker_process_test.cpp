// Worker processes (runner/run/worker_process.hpp): several alive at once, as a run over several
// GPUs has, each ends by itself when the parent closes its input.
#include <algorithm>
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

}  // namespace
}  // namespace runner
