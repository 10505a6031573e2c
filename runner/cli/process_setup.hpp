#pragma once

namespace runner::cli {

// Sets up the environment of a process that will run points or calibrate, before OpenMP and
// OpenBLAS read it. Both read their variables when they are loaded, so a change means starting
// the binary again (execv of /proc/self/exe, once; the second start finds nothing to change):
//  - OMP_PROC_BIND=close and OMP_PLACES=cores, unless OMP_PROC_BIND or RUNNER_NO_PIN is set
//    (a user's own settings are kept, and recorded in the manifest);
//  - OMP_NUM_THREADS that is not a list of thread counts from 1 to 4096 (100000 made libgomp
//    fail to start its threads) becomes the number of cores, with a warning;
void prepare_process_environment(char** argv);

// For every command, first thing in main: under `ulimit -v`, OPENBLAS_NUM_THREADS is lowered to
// the threads whose 128 MiB buffers fit (runner/base/host_memory.hpp), with a warning, and the
// binary starts again (once). OpenBLAS starts its thread pool when it is loaded, before main, and a
// pool thread without room for its buffer spins forever, also in `runner --version`: the pool is
// joined at exit. Under `ulimit -u` the binary was started again before OpenBLAS loaded
// (runner/base/task_limit.hpp); this says so.
void fit_openblas_to_address_space(char** argv);

}  // namespace runner::cli
