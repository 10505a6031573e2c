#pragma once

namespace runner {

// Starts OpenBLAS's thread pool, if it is not running yet, with threads free to run on every CPU
// of the run's OpenMP places. OpenBLAS creates its pthreads from the thread that first needs them
// and they inherit that thread's affinity; under OMP_PROC_BIND the calling thread is pinned to one
// core, so without this every OpenBLAS thread would share that core (measured: 2 threads ran no
// faster than 1). Call before the first BLAS call of a process that will use several threads:
// the GEMM kernels' reference and OpenBLAS variant, and the CPU calibration, which a run may do in
// its pinned worker (runner/measure/calibration.cpp).
// Under `ulimit -v` the pool gets only the threads whose buffers fit (runner/base/host_memory.hpp);
// throws PointSkipped ("out of memory: ...") when not even one BLAS call fits.
void start_openblas_pool_unpinned();

// Throws PointSkipped ("out of memory: OpenBLAS with N threads needs ...") unless `threads`
// OpenBLAS threads fit in the address space left, and ("thread limit: ...") under the per-user
// process limit (runner/base/task_limit.hpp): a point that asks for more must not start them
// (they would spin forever).
void require_openblas_threads(int threads);

// The threads of OpenBLAS's pool beside the caller's (0 before start_openblas_pool_unpinned).
int openblas_pool_threads();

}  // namespace runner
