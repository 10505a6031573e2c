#pragma once
#include <vector>

#include <nlohmann/json.hpp>

namespace runner {

// The CPU ceilings at one thread count: a stream-like copy and OpenBLAS GEMM (GB/s and GFLOP/s).
struct CpuCeilingsAt {
  int threads = 0;
  double copy_gbps =
      0;  // a[i] = b[i] over arrays far larger than the last-level cache, read + written
  double sgemm_gflops = 0;  // cblas_sgemm, the best over the sizes tried
  double dgemm_gflops = 0;
  int sgemm_n = 0, dgemm_n = 0;  // the size of that best
  // How much slower than the best the median repetition was (median / best - 1): 0 on a quiet
  // machine, a few percent when something else ran meanwhile.
  double copy_spread = 0, sgemm_spread = 0, dgemm_spread = 0;
};

// Thread counts the CPU is calibrated at: powers of two up to `cores`, and `cores` itself.
std::vector<int> calibration_thread_counts(int cores);

// Measures the ceilings at each thread count in this process: OpenMP for the copy (with the
// process's OMP_PROC_BIND / OMP_PLACES), openblas_set_num_threads for GEMM. Each figure is the
// best of its repetitions after a warm-up, the convention of STREAM: interference on a CPU only
// ever slows a run down. GEMM sizes grow from 1024 until one call takes 50 ms (8192 at most), so
// that a core count is measured at a size that keeps it busy; on 2 cores the whole takes a few
// seconds.
std::vector<CpuCeilingsAt> measure_cpu_ceilings(const std::vector<int>& thread_counts);

}  // namespace runner
