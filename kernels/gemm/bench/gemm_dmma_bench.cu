// Standalone benchmark of the dmma kernel (kernels/gemm/gemm_dmma.cuh) against cuBLAS DGEMM.
// Build and run (argument 0: the default tile only):
//   cmake --build build --target kernel_benches && build/bin/gemm_dmma_bench
// (not built by default; the tables of docs/performance.md's log came from it, on an H100).
// For each size and tile candidate: TFLOP/s of dmma and cuBLAS (CUDA events, 5 warm-ups, median
// of 20), their ratio, and max|C − C_cublas| / max|C_cublas| (must be < 1e-12).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernels/common/bench_checks.cuh"
#include "kernels/gemm/gemm_dmma.cuh"

namespace dm = runner::kernels::gemm::dmma;

__global__ void fill_random(double* p, std::int64_t count, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    std::uint64_t x = (static_cast<std::uint64_t>(i) + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    p[i] = static_cast<double>(x >> 11) * 0x1p-53 * 2.0 - 1.0;
  }
}
// Non-negative doubles order like their bit patterns; NaN sorts above +inf.
__global__ void max_abs_diff(const double* c, const double* ref, std::int64_t count,
                             unsigned long long* out /* [0] max|c-ref|, [1] max|ref| */) {
  double d = 0, r = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const double x = fabs(c[i] - ref[i]);
    d = (x > d || x != x) ? x : d;
    r = fmax(r, fabs(ref[i]));
  }
  atomicMax(out, static_cast<unsigned long long>(__double_as_longlong(d)));
  atomicMax(out + 1, static_cast<unsigned long long>(__double_as_longlong(r)));
}

struct Candidate {
  const char* name;
  void (*launch)(const double*, const double*, double*, std::int64_t, std::int64_t, std::int64_t,
                 cudaStream_t);
  void (*info)();
};

template <typename Cfg, bool kVec>
void set_attr_and_report(bool report) {
  auto* f = dm::dmma_kernel<Cfg, kVec>;
  CK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          static_cast<int>(Cfg::kSharedBytes)));
  if (!report) return;
  cudaFuncAttributes attr{};
  CK(cudaFuncGetAttributes(&attr, f));
  int blocks = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, Cfg::kThreads, Cfg::kSharedBytes));
  std::printf("    vec=%d: %d regs, %zu B local (spills), %zu B smem, %d threads, %d blocks/SM\n",
              int(kVec), attr.numRegs, attr.localSizeBytes, Cfg::kSharedBytes, Cfg::kThreads,
              blocks);
}

template <typename Cfg>
void launch(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n,
            std::int64_t k, cudaStream_t s) {
  const std::int64_t tm = (m + Cfg::kBM - 1) / Cfg::kBM, tn = (n + Cfg::kBN - 1) / Cfg::kBN;
  const auto al = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  const bool vec = k % 2 == 0 && n % 2 == 0 && al(a) && al(b) && al(c);
  const unsigned blocks = static_cast<unsigned>(tm * tn);
  if (vec)
    dm::dmma_kernel<Cfg, true>
        <<<blocks, Cfg::kThreads, Cfg::kSharedBytes, s>>>(a, b, c, m, n, k, tm, tn);
  else
    dm::dmma_kernel<Cfg, false>
        <<<blocks, Cfg::kThreads, Cfg::kSharedBytes, s>>>(a, b, c, m, n, k, tm, tn);
  CK(cudaGetLastError());
}
template <typename Cfg>
void info() {
  set_attr_and_report<Cfg, true>(true);
  set_attr_and_report<Cfg, false>(true);
}

// Candidate 0 is the registered variant's tile (dm::DefaultConfig).
// Config<BM, BN, BK, WM, WN, Stages, MmaK, MinBlocksPerSM>
#define CAND(name, ...)                          \
  Candidate {                                    \
    name, launch<__VA_ARGS__>, info<__VA_ARGS__> \
  }
const Candidate kCandidates[] = {
    CAND("default 128x128x16 w64x32 s3 k8", dm::DefaultConfig),
    CAND("128x128x16 w64x32 s3 k16", dm::Config<128, 128, 16, 64, 32, 3, 16, 1>),
    CAND("128x128x32 w64x32 s3 k16", dm::Config<128, 128, 32, 64, 32, 3, 16, 1>),
    CAND("128x128x32 w64x32 s3 k8 (large smem)", dm::LargeSmemConfig),
    CAND("128x128x16 w32x64 s4 k8", dm::Config<128, 128, 16, 32, 64, 4, 8, 1>),
    CAND("128x128x16 w32x32 s3 k8 (512 thr)", dm::Config<128, 128, 16, 32, 32, 3, 8, 1>),
    CAND("128x64x16 w64x32 s3 k8 (128 thr, 2/SM)", dm::Config<128, 64, 16, 64, 32, 3, 8, 2>),
    CAND("128x64x32 w64x32 s3 k8 (128 thr)", dm::Config<128, 64, 32, 64, 32, 3, 8, 2>),
    CAND("128x64x16 w32x32 s2 k8 (256 thr, 2/SM)", dm::Config<128, 64, 16, 32, 32, 2, 8, 2>),
};
constexpr int kNumCandidates = sizeof(kCandidates) / sizeof(kCandidates[0]);

template <typename F>
double median_ms(F&& f, cudaStream_t s) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int i = 0; i < 5; ++i) f();
  std::vector<float> t(20);
  for (auto& x : t) {
    CK(cudaEventRecord(e0, s));
    f();
    CK(cudaEventRecord(e1, s));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&x, e0, e1));
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  std::sort(t.begin(), t.end());
  return 0.5 * (t[9] + t[10]);
}

int main(int argc, char** argv) {
  int only = -1;
  if (argc > 1) only = std::atoi(argv[1]);
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor,
              prop.multiProcessorCount);
  for (int ci = 0; ci < kNumCandidates; ++ci) {
    if (only >= 0 && ci != only) continue;
    std::printf("cand %d: %s\n", ci, kCandidates[ci].name);
    kCandidates[ci].info();
  }
  cublasHandle_t h;
  CB(cublasCreate(&h));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  CB(cublasSetStream(h, s));
  struct Size {
    std::int64_t m, n, k;
  } sizes[] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {4000, 4001, 3999}};
  unsigned long long* red;
  CK(cudaMalloc(&red, 2 * sizeof(unsigned long long)));
  int failures = 0;
  for (const Size& z : sizes) {
    double *a, *b, *c, *ref;
    CK(cudaMalloc(&a, sizeof(double) * z.m * z.k));
    CK(cudaMalloc(&b, sizeof(double) * z.k * z.n));
    CK(cudaMalloc(&c, sizeof(double) * z.m * z.n));
    CK(cudaMalloc(&ref, sizeof(double) * z.m * z.n));
    fill_random<<<1024, 256, 0, s>>>(a, z.m * z.k, 1);
    fill_random<<<1024, 256, 0, s>>>(b, z.k * z.n, 2);
    CK(cudaGetLastError());
    const double one = 1, zero = 0;
    // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ.
    auto cublas = [&] {
      CB(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(z.n), static_cast<int>(z.m),
                     static_cast<int>(z.k), &one, b, static_cast<int>(z.n), a,
                     static_cast<int>(z.k), &zero, ref, static_cast<int>(z.n)));
    };
    const double flop = 2.0 * z.m * z.n * z.k;
    const double cublas_ms = median_ms(cublas, s);
    const double cublas_tf = flop / cublas_ms * 1e-9;
    for (int ci = 0; ci < kNumCandidates; ++ci) {
      if (only >= 0 && ci != only) continue;
      const Candidate& cand = kCandidates[ci];
      CK(cudaMemsetAsync(c, 0xFF, sizeof(double) * z.m * z.n, s));  // NaN: unwritten shows
      cand.launch(a, b, c, z.m, z.n, z.k, s);
      CK(cudaMemsetAsync(red, 0, 2 * sizeof(unsigned long long), s));
      max_abs_diff<<<1024, 256, 0, s>>>(c, ref, z.m * z.n, red);
      unsigned long long r[2];
      CK(cudaMemcpyAsync(r, red, sizeof r, cudaMemcpyDeviceToHost, s));
      CK(cudaStreamSynchronize(s));
      double dmax, rmax;
      std::memcpy(&dmax, &r[0], 8);
      std::memcpy(&rmax, &r[1], 8);
      const double err = dmax / rmax;
      const bool ok = err < 1e-12;
      failures += !ok;
      const double ms = median_ms([&] { cand.launch(a, b, c, z.m, z.n, z.k, s); }, s);
      const double tf = flop / ms * 1e-9;
      std::printf(
          "%5lldx%5lldx%5lld cand %d [%-40s] dmma %6.2f TFLOP/s  cublas %6.2f TFLOP/s  "
          "ratio %5.1f %%  err %.2e %s\n",
          (long long)z.m, (long long)z.n, (long long)z.k, ci, cand.name, tf, cublas_tf,
          100.0 * tf / cublas_tf, err, ok ? "OK" : "FAIL");
      std::fflush(stdout);
    }
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
    CK(cudaFree(ref));
  }
  CK(cudaFree(red));
  CB(cublasDestroy(h));
  std::printf("%d failures\n", failures);
  return failures != 0;
}
