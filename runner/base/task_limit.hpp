#pragma once
#include <optional>
#include <string>

namespace runner {

// The per-user process limit (RLIMIT_NPROC, `ulimit -u`, often set low on login and batch nodes):
// every process and every thread of the user counts against it. Beyond it pthread_create and fork
// fail with EAGAIN ("Resource temporarily unavailable", naming nothing): OpenBLAS then raised
// SIGINT while the binary loaded (`runner --version` exited 130), or spun in a worker without the
// threads it counted on, until every point, even omp_serial, reached its time limit.
struct TaskLimit {
  long limit = 0;   // the soft limit
  long in_use = 0;  // processes and threads of this user (its real uid) now
  long headroom() const { return limit > in_use ? limit - in_use : 0; }
  // "the per-user process limit (ulimit -u 3; 3 processes and threads of this user run)"
  std::string describe() const;
};
// nullopt when no such limit applies: unlimited, or a process the kernel exempts (root,
// CAP_SYS_RESOURCE, CAP_SYS_ADMIN).
std::optional<TaskLimit> task_limit();

// Why `more` further threads or processes cannot start now ("thread limit: OpenBLAS with 4 threads
// needs 3 more threads, but the per-user process limit ... leaves room for 1"), or nullopt when
// they fit or no limit applies. `what` names what needs them.
std::optional<std::string> tasks_do_not_fit(int more, const std::string& what);
// The same for a process that will need `threads_in_all` threads at once (threads it has already,
// an OpenMP team's from an earlier point, say, are reused).
std::optional<std::string> threads_do_not_fit(int threads_in_all, const std::string& what);

// How many of `wanted` threads of a pool that this process starts (the caller's own thread
// counts as one) fit under the limit, keeping `reserve` tasks free; at least 1.
int threads_within_task_limit(int wanted, int reserve = 0);

// A note for a failure that may be the limit's (EAGAIN from fork or pthread_create, a worker
// that died starting): "; the per-user process limit (ulimit -u 2; 2 processes and threads of
// this user run) is reached", or "" when the limit is not near.
std::string task_limit_note();

// OpenBLAS starts its thread pool while the binary loads, before main: under the limit it could
// not, and raised SIGINT. An early entry (`.preinit_array`, before any library starts) starts the
// binary again with OPENBLAS_NUM_THREADS lowered to what fits, keeping room for a worker process
// and its watchdog thread. The warning to give then, once main runs; nullopt when nothing was
// lowered.
std::optional<std::string> openblas_fitted_to_task_limit();

}  // namespace runner
