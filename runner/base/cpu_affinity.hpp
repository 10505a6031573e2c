#pragma once

#include <vector>

namespace runner {

// The CPUs this process may run on: its affinity mask (taskset, numactl, Slurm's cgroups and task
// binding) as it was when the process started, not the machine's count. Defaults that size thread
// teams (the `threads` axis, a replaced OMP_NUM_THREADS, OpenBLAS) take it, so a default point is
// never oversubscribed by construction.
//
// Read before the shared libraries start (a `.preinit_array` entry): with OMP_PROC_BIND set,
// libgomp binds the main thread to its first place while it loads, after which the mask shows a
// single CPU. At least 1.
int usable_cpus();

// The CPU numbers of this thread's affinity mask now, ascending; empty when the mask cannot be
// read.
std::vector<int> affinity_cpus();

// The CPU numbers of the process's mask when it started, ascending, read with usable_cpus()'s
// count: the cores a worker process may be given. Not affinity_cpus(): by now, under the
// OMP_PROC_BIND the runner sets, libgomp has bound the main thread to one core, and every worker
// forked with that mask would share it.
std::vector<int> cpus_at_start();

}  // namespace runner
