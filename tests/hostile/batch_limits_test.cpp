// What a batch system's allocation limits: the CPUs of an affinity mask (taskset, Slurm's
// cgroups) size the default thread counts; a per-user process limit (ulimit -u) is found and
// named instead of spinning OpenBLAS into every point's time limit.
#include <sched.h>

#include <gtest/gtest.h>

#include "tests/hostile/hostile.hpp"

namespace runner::hostile {
namespace {

using namespace cli_testing;

int cpus_of_this_process() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

std::vector<std::string> under_taskset(const std::string& cpus, std::vector<std::string> argv) {
  argv.insert(argv.begin(), {"/usr/bin/taskset", "-c", cpus});
  return argv;
}

TEST(AffinityMask, SetsTheDefaultThreadCountSoNoDefaultPointIsOversubscribed) {
  if (cpus_of_this_process() < 2) GTEST_SKIP() << "needs 2 CPUs to mask one away";
  TempDir dir;
  write_text(dir / "config.yaml", R"(experiment: masked
kernel: gemm
repeat: {warmup: 0, min_samples: 1, max_samples: 1}
sweeps:
  - {variant: [omp_naive, omp_blocked], size: [16, 32]}
)");
  const auto out = dir / "out";
  const ProcessResult dry =
      run_process(under_taskset("0", run_argv({(dir / "config.yaml").string(), "--dry-run"})));
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_EQ(count_of(dry.out, "threads=1\n"), 4u) << dry.out;
  const ProcessResult r = run_process(
      under_taskset("0", run_argv({(dir / "config.yaml").string(), "--out", out.string(), "-q"})),
      60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const auto& rec : records_in(out / "records.jsonl")) {
    EXPECT_EQ(rec["threads"], 1) << rec.dump();
    EXPECT_NE(rec["oversubscribed"], true) << rec.dump();
  }
  // An absurd OMP_NUM_THREADS is replaced by the mask's CPUs too.
  const ProcessResult replaced = run_process(
      under_taskset(
          "0", run_argv({(dir / "config.yaml").string(), "--out", (dir / "out2").string(), "-q"})),
      60, {.env = {{"OMP_NUM_THREADS", "100000"}}});
  EXPECT_EQ(replaced.exit_code, 0) << replaced.err;
  EXPECT_NE(replaced.err.find("using 1 (the cores of this process)"), std::string::npos)
      << replaced.err;
}

}  // namespace
}  // namespace runner::hostile
