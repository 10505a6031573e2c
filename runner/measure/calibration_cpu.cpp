#include "runner/measure/calibration_cpu.hpp"

#include <cblas.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "runner/api/openblas_pool.hpp"

extern "C" void openblas_set_num_threads(int num_threads);

namespace runner {

namespace {

constexpr int kCopyRepetitions = 5;
constexpr int kGemmRepetitions = 3;
constexpr double kGemmCallSeconds = 0.05;  // grow the size until one call takes this long
constexpr int kGemmMinSize = 1024, kGemmMaxSize = 8192;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Timing {
  double best = 0, median = 0;
  double spread() const { return best > 0 ? median / best - 1 : 0; }
};

template <typename Fn>
Timing best_seconds(int repetitions, Fn&& fn) {
  fn();  // warm-up: page faults, thread start-up, OpenBLAS buffers
  std::vector<double> seconds;
  for (int i = 0; i < repetitions; ++i) {
    const double t0 = now_s();
    fn();
    seconds.push_back(now_s() - t0);
  }
  std::sort(seconds.begin(), seconds.end());
  return {seconds.front(), seconds[seconds.size() / 2]};
}

// Bytes of each copy array: four times the last-level cache (so that nothing of one pass is left
// for the next) and at least 64 MiB, within a quarter of the free memory.
std::size_t copy_array_bytes() {
  long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
  std::size_t bytes =
      std::max<std::size_t>(std::size_t{64} << 20, 4 * static_cast<std::size_t>(std::max(llc, 0L)));
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0)
    bytes = std::min(bytes, static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 8);
  return bytes;
}

std::pair<double, double> copy_gbps(int threads, std::int64_t n, double* dst, const double* src) {
  const Timing t = best_seconds(kCopyRepetitions, [&] {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) dst[i] = src[i];
  });
  return {2.0 * static_cast<double>(n) * sizeof(double) / (t.best * 1e9), t.spread()};
}

template <typename T>
void fill(std::vector<T>& v, std::uint64_t seed) {
  const auto n = static_cast<std::int64_t>(v.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint64_t x = (static_cast<std::uint64_t>(i) + seed) * 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 31)) * 0xbf58476d1ce4e5b9ull;
    v[static_cast<std::size_t>(i)] =
        static_cast<T>(2.0 * static_cast<double>(x >> 11) * 0x1.0p-53 - 1.0);
  }
}

template <typename T>
Timing gemm_seconds(int n, const std::vector<T>& a, const std::vector<T>& b, std::vector<T>& c) {
  return best_seconds(kGemmRepetitions, [&] {
    if constexpr (std::is_same_v<T, float>)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(),
                  n, 0.0f, c.data(), n);
    else
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a.data(), n, b.data(), n,
                  0.0, c.data(), n);
  });
}

struct GemmFigure {
  double gflops = 0, spread = 0;
  int n = 0;
};

// The best GFLOP/s over growing sizes, the size it came from and the spread there.
template <typename T>
GemmFigure gemm_gflops(int threads) {
  // A run calibrates in its worker, whose thread OMP_PROC_BIND pinned to one core: a pool started
  // from it would run every thread on that core (seen: 136 GFLOP/s on 16 threads, 148 on 1).
  start_openblas_pool_unpinned();
  openblas_set_num_threads(threads);
  GemmFigure best;
  for (int n = kGemmMinSize; n <= kGemmMaxSize; n *= 2) {
    const std::size_t elements = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    std::vector<T> a(elements), b(elements), c(elements);
    fill(a, 1);
    fill(b, 2);
    const Timing t = gemm_seconds(n, a, b, c);
    const double gflops = 2.0 * n * static_cast<double>(n) * n / (t.best * 1e9);
    if (gflops > best.gflops) best = {gflops, t.spread(), n};
    if (t.best >= kGemmCallSeconds) break;
  }
  return best;
}

}  // namespace

std::vector<int> calibration_thread_counts(int cores) {
  std::vector<int> counts;
  for (int t = 1; t < cores; t *= 2) counts.push_back(t);
  counts.push_back(std::max(cores, 1));
  return counts;
}

std::vector<CpuCeilingsAt> measure_cpu_ceilings(const std::vector<int>& thread_counts) {
  const std::size_t elements = copy_array_bytes() / sizeof(double);
  // Left uninitialised (not std::vector) so that the first touch below places the pages: by the
  // most threads, in the copy's static schedule, near the cores that copy them.
  const std::unique_ptr<double[]> a(new double[elements]), b(new double[elements]);
  const int most =
      thread_counts.empty() ? 1 : *std::max_element(thread_counts.begin(), thread_counts.end());
  const auto n = static_cast<std::int64_t>(elements);
#pragma omp parallel for num_threads(most) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    a[static_cast<std::size_t>(i)] = 0;
    b[static_cast<std::size_t>(i)] = static_cast<double>(i);
  }
  std::vector<CpuCeilingsAt> out;
  for (int t : thread_counts) {
    CpuCeilingsAt c;
    c.threads = t;
    std::tie(c.copy_gbps, c.copy_spread) = copy_gbps(t, n, a.get(), b.get());
    const GemmFigure s = gemm_gflops<float>(t), d = gemm_gflops<double>(t);
    std::tie(c.sgemm_gflops, c.sgemm_n, c.sgemm_spread) = std::tuple(s.gflops, s.n, s.spread);
    std::tie(c.dgemm_gflops, c.dgemm_n, c.dgemm_spread) = std::tuple(d.gflops, d.n, d.spread);
    out.push_back(c);
  }
  return out;
}

}  // namespace runner
