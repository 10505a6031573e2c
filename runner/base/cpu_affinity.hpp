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

// The CPU numbers of this thread's affinity mask now, ascending (for pinning a worker to some of
// them, or pinning it back); empty when the mask cannot be read.
std::vector<int> affinity_cpus();

}  // namespace runner
