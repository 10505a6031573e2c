#include "runner/api/openblas_pool.hpp"

#include <cblas.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "runner/api/errors.hpp"
#include "runner/base/host_memory.hpp"
#include "runner/base/task_limit.hpp"

extern "C" void openblas_set_num_threads(int num_threads);

namespace runner {

namespace {
// The most threads OpenBLAS was given in this process: its pool keeps them (a later
// openblas_set_num_threads with fewer leaves the threads alive).
int g_pool_size = 1;
}  // namespace

void require_openblas_threads(int threads) {
  if (const auto why =
          tasks_do_not_fit(threads - g_pool_size, fmt::format("OpenBLAS with {} threads", threads)))
    throw PointSkipped(*why);
  const int fit = openblas_threads_that_fit(threads);
  if (fit >= threads) {
    g_pool_size = std::max(g_pool_size, threads);  // the caller starts them now
    return;
  }
  throw PointSkipped(fmt::format(
      "out of memory: OpenBLAS with {} thread{} needs about {} of address space, ulimit -v "
      "leaves {}",
      threads, threads == 1 ? "" : "s",
      format_gb(static_cast<double>(threads) * kOpenBlasBytesPerThread),
      format_gb(static_cast<double>(address_space_headroom().value_or(0)))));
}

int openblas_pool_threads() {
  return std::max(0, g_pool_size - 1);
}

void start_openblas_pool_unpinned() {
  static bool started = false;  // once per process (a worker process runs many points)
  if (started) return;
  cpu_set_t saved, all;
  CPU_ZERO(&all);
  if (sched_getaffinity(0, sizeof saved, &saved) != 0) return;
  for (int place = 0; place < omp_get_num_places(); ++place) {
    std::vector<int> ids(static_cast<std::size_t>(omp_get_place_num_procs(place)));
    omp_get_place_proc_ids(place, ids.data());
    for (int id : ids) CPU_SET(id, &all);
  }
  // Under `ulimit -v` only as many threads as have room for their buffers (host_memory.hpp); not
  // even one: the BLAS call cannot be made.
  require_openblas_threads(1);
  // Under `ulimit -u` only the threads the per-user process limit leaves room for: a pool thread
  // that cannot start made OpenBLAS raise SIGINT, or wait forever for it.
  const int threads = std::max(
      1, std::min(openblas_threads_that_fit(std::max(CPU_COUNT(&all), CPU_COUNT(&saved))),
                  threads_within_task_limit(std::max(CPU_COUNT(&all), CPU_COUNT(&saved)))));
  started = true;
  g_pool_size = std::max(g_pool_size, threads);
  if (CPU_COUNT(&all) <= CPU_COUNT(&saved)) {  // not pinned narrower than the places
    openblas_set_num_threads(threads);
    return;
  }
  sched_setaffinity(0, sizeof all, &all);
  // A product large enough to run threaded makes OpenBLAS create its pool now, from this
  // (temporarily unpinned) thread.
  constexpr int n = 256;
  std::vector<double> a(n * n, 1.0), b(n * n, 1.0), c(n * n);
  openblas_set_num_threads(threads);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a.data(), n, b.data(), n,
              0.0, c.data(), n);
  sched_setaffinity(0, sizeof saved, &saved);
}

}  // namespace runner
