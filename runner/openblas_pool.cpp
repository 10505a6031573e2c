#include "runner/openblas_pool.hpp"

#include <cblas.h>
#include <omp.h>
#include <sched.h>

#include <vector>

extern "C" void openblas_set_num_threads(int num_threads);

namespace runner {

void start_openblas_pool_unpinned() {
  static bool started = false;  // once per process (a worker process runs many points)
  if (started) return;
  started = true;
  cpu_set_t saved, all;
  CPU_ZERO(&all);
  if (sched_getaffinity(0, sizeof saved, &saved) != 0) return;
  for (int place = 0; place < omp_get_num_places(); ++place) {
    std::vector<int> ids(static_cast<std::size_t>(omp_get_place_num_procs(place)));
    omp_get_place_proc_ids(place, ids.data());
    for (int id : ids) CPU_SET(id, &all);
  }
  if (CPU_COUNT(&all) <= CPU_COUNT(&saved)) return;  // not pinned narrower than the places
  sched_setaffinity(0, sizeof all, &all);
  // A product large enough to run threaded makes OpenBLAS create its pool now, from this
  // (temporarily unpinned) thread.
  constexpr int n = 256;
  std::vector<double> a(n * n, 1.0), b(n * n, 1.0), c(n * n);
  openblas_set_num_threads(CPU_COUNT(&all));
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a.data(), n, b.data(), n,
              0.0, c.data(), n);
  sched_setaffinity(0, sizeof saved, &saved);
}

}  // namespace runner
