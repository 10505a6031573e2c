#pragma once
#include <string>

namespace runner {

// The CPUs the threads of an OpenMP parallel region of `threads` threads run on, thread 0 first:
// "[0,1,2,3]". With OMP_PROC_BIND set (the runner's default, see cli/main.cpp) the threads are
// pinned and this is where every region of the point runs; unpinned, it is a snapshot, and two
// threads on one CPU show that the point was oversubscribed or its threads were not spread.
std::string omp_thread_cpus(int threads);

}  // namespace runner
