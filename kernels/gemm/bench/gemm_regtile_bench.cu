// Standalone benchmark of regtile tilings vs cuBLAS pedantic SGEMM (row-major C = A·B).
// Build and run:
//   cmake --build build --target kernel_benches && build/bin/gemm_regtile_bench
// (not built by default; the tables of docs/performance.md's log came from it, on an H100).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernels/common/bench_checks.cuh"
#include "kernels/gemm/gemm_regtile.cuh"

using namespace runner::kernels::gemm::regtile;

__global__ void fill(float* p, std::int64_t count, std::uint32_t seed) {
  for (std::int64_t i = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; i < count;
       i += (std::int64_t)gridDim.x * blockDim.x) {
    std::uint32_t x = (std::uint32_t)i * 2654435761u ^ seed;
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    p[i] = (x >> 8) * (2.0f / 16777216.0f) - 1.0f;
  }
}

using KernelFn = void (*)(const float*, const float*, float*, std::int64_t, std::int64_t,
                          std::int64_t, std::int64_t, std::int64_t);

struct Instance {
  const char* name;
  KernelFn vec, scalar;
  int bm, bn, threads;
};

template <class T>
Instance make(const char* name) {
  return {name, regtile_kernel<T, true>, regtile_kernel<T, false>, T::BM, T::BN, T::kThreads};
}

// Candidates: Tiling<BM, BN, BK, WARPS_M, WARPS_N, TM, TN, minBlocks, fragDb, group>
using I0 =
    Tiling<128, 128, 8, 4, 2, 8, 8, 2>;  // first version: 128x128x8, warps 4x2 (32x64), lanes 4x8
using I1 = Tiling<128, 128, 16, 4, 2, 8, 8, 2>;        // BK 16
using I2 = Tiling<128, 128, 8, 2, 4, 8, 8, 2>;         // warps 2x4 (64x32), lanes 8x4
using I3 = Tiling<128, 128, 16, 2, 4, 8, 8, 2>;        // BK 16 + warps 64x32
using I4 = Tiling<128, 128, 8, 4, 2, 8, 8, 2, true>;   // fragment double buffering
using I5 = Tiling<128, 128, 16, 4, 2, 8, 8, 2, true>;  // BK 16 + frag DB (the shipped Regtile)
using I6 = Tiling<128, 256, 8, 2, 4, 8, 16, 1>;        // 128x256, 8x16/thread, 1 block/SM
using I7 = Tiling<128, 128, 8, 4, 2, 8, 8, 1>;         // registered with launch_bounds(256,1)

struct Size {
  std::int64_t m, n, k;
  bool timed;
};

static double norm_rel(const std::vector<float>& c, const std::vector<float>& r) {
  double num = 0, den = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    const double d = (double)c[i] - r[i];
    num += d * d;
    den += (double)r[i] * r[i];
  }
  if (!std::isfinite(num)) return INFINITY;
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

template <class F>
static double median_ms(F&& f, cudaEvent_t e0, cudaEvent_t e1) {
  for (int i = 0; i < 5; ++i) f();
  std::vector<float> t(20);
  for (auto& x : t) {
    CK(cudaEventRecord(e0));
    f();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&x, e0, e1));
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return 0.5 * (t[9] + t[10]);
}

int main(int argc, char** argv) {
  Instance insts[] = {make<I0>("I0 128x128x8 w4x2 8x8 lb2"),
                      make<I1>("I1 128x128x16 w4x2 8x8 lb2"),
                      make<I2>("I2 128x128x8 w2x4(64x32) 8x8 lb2"),
                      make<I3>("I3 128x128x16 w2x4(64x32) 8x8 lb2"),
                      make<I4>("I4 128x128x8 w4x2 8x8 lb2 fragDB"),
                      make<I5>("I5 128x128x16 w4x2 8x8 lb2 fragDB (regtile)"),
                      make<I6>("I6 128x256x8 w2x4(64x64) 8x16 lb1"),
                      make<I7>("I7 128x128x8 w4x2 8x8 lb1")};
  const int ninst = sizeof(insts) / sizeof(insts[0]);
  for (auto& in : insts) {
    cudaFuncAttributes at{};
    CK(cudaFuncGetAttributes(&at, (const void*)in.vec));
    int occ = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, in.vec, in.threads, 0));
    std::printf("%-40s regs %3d smem %6zu local %zu blocks/SM %d\n", in.name, at.numRegs,
                at.sharedSizeBytes, at.localSizeBytes, occ);
  }
  std::vector<Size> sizes = {{4000, 4001, 3999, false},
                             {200, 136, 257, false},
                             {128, 128, 128, false},
                             {4096, 4096, 4096, true},
                             {8192, 8192, 8192, true}};
  if (argc > 1 && std::atoi(argv[1]) == 0) sizes.resize(3);  // correctness only

  cublasHandle_t h;
  CB(cublasCreate(&h));
  CB(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  int bad = 0;
  for (const Size& s : sizes) {
    float *a, *b, *c, *r;
    CK(cudaMalloc(&a, s.m * s.k * 4 + 16));
    CK(cudaMalloc(&b, s.k * s.n * 4 + 16));
    CK(cudaMalloc(&c, s.m * s.n * 4 + 16));
    CK(cudaMalloc(&r, s.m * s.n * 4 + 16));
    fill<<<1024, 256>>>(a, s.m * s.k, 1u);
    fill<<<1024, 256>>>(b, s.k * s.n, 2u);
    CK(cudaGetLastError());
    const float one = 1, zero = 0;
    const int M = (int)s.m, N = (int)s.n, K = (int)s.k;
    auto cublas = [&] {
      CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, b, N, a, K, &zero, r, N));
    };
    cublas();
    CK(cudaDeviceSynchronize());
    std::vector<float> ref(s.m * s.n), out(s.m * s.n);
    CK(cudaMemcpy(ref.data(), r, ref.size() * 4, cudaMemcpyDeviceToHost));
    const double flop = 2.0 * s.m * s.n * s.k;
    double cublas_tf = 0;
    std::printf("\n== m=%ld n=%ld k=%ld\n", (long)s.m, (long)s.n, (long)s.k);
    if (s.timed) {
      const double ms = median_ms(cublas, e0, e1);
      cublas_tf = flop / ms * 1e-9;
      std::printf("%-40s %8.3f ms %7.2f TFLOP/s\n", "cuBLAS SGEMM pedantic", ms, cublas_tf);
    }
    const bool vec = s.n % 4 == 0 && s.k % 4 == 0;
    for (int i = 0; i < ninst; ++i) {
      const Instance& in = insts[i];
      const std::int64_t tm = (s.m + in.bm - 1) / in.bm, tn = (s.n + in.bn - 1) / in.bn;
      // correctness: both paths where vec applies, else scalar
      for (int v = vec ? 1 : 0; v >= 0; --v) {
        KernelFn fn = v ? in.vec : in.scalar;
        CK(cudaMemset(c, 0xFF, s.m * s.n * 4));  // NaN poison
        fn<<<(unsigned)(tm * tn), in.threads>>>(a, b, c, s.m, s.n, s.k, tm, tn);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(out.data(), c, out.size() * 4, cudaMemcpyDeviceToHost));
        const double err = norm_rel(out, ref);
        const bool ok = err < 1e-5;
        bad += !ok;
        if (!s.timed || !ok || !v)
          std::printf("%-40s %s rel err %.3g %s\n", in.name, v ? "vec   " : "scalar", err,
                      ok ? "ok" : "FAIL");
        if (s.timed && v) {
          auto launch = [&] {
            in.vec<<<(unsigned)(tm * tn), in.threads>>>(a, b, c, s.m, s.n, s.k, tm, tn);
          };
          const double ms = median_ms(launch, e0, e1);
          const double tf = flop / ms * 1e-9;
          std::printf("%-40s %8.3f ms %7.2f TFLOP/s %6.1f %% of cuBLAS  (rel err %.2g%s)\n",
                      in.name, ms, tf, 100 * tf / cublas_tf, err, ok ? "" : " FAIL");
        }
        if (s.timed) break;  // timed sizes: vec path only
      }
    }
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
    CK(cudaFree(r));
  }
  std::printf("\n%s (%d failures)\n", bad ? "FAIL" : "all correct", bad);
  return bad != 0;
}
