// Standalone benchmark of conv2d shared_reg instances. Build and run:
//   cmake --build build --target kernel_benches && build/bin/conv2d_shared_reg_bench
// (not built by default; the tables of docs/performance.md's log came from it, on an H100).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/common/bench_checks.cuh"
#include "kernels/conv2d/conv2d_shared_reg.cuh"

using namespace runner::kernels::conv2d::shared_reg;

__global__ void naive(const float* in, float* out, int m, int n, int ks) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= m || j >= n) return;
  const int r = ks / 2;
  float s = 0.0f;
  for (int a = 0; a < ks; ++a)
    for (int b = 0; b < ks; ++b) {
      const int x = i + a - r, y = j + b - r;
      if (x >= 0 && x < m && y >= 0 && y < n)
        s = fmaf(in[static_cast<long long>(x) * n + y], c_weights_reg[a * ks + b], s);
    }
  out[static_cast<long long>(i) * n + j] = s;
}

__global__ void flush_kernel(const float4* buf, size_t count, float* sink) {
  float acc = 0.0f;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    const float4 v = buf[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 12345.678f) *sink = acc;
}

__global__ void maxabs_diff(const float* a, const float* b, size_t count, float* res) {
  float d = 0.0f, mx = 0.0f;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    const float diff = fabsf(a[i] - b[i]);
    d = isnan(diff) ? INFINITY : fmaxf(d, diff);  // poisoned (NaN) outputs fail
    mx = fmaxf(mx, fabsf(b[i]));
  }
  // non-negative floats: compare as ints
  atomicMax(reinterpret_cast<int*>(res), __float_as_int(d));
  atomicMax(reinterpret_cast<int*>(res) + 1, __float_as_int(mx));
}

static float4* g_flush;
static size_t g_flush_count;
static float* g_sink;
static int g_sms;

static void flush() {
  flush_kernel<<<g_sms * 8, 256>>>(g_flush, g_flush_count, g_sink);
  CK(cudaGetLastError());
}

template <class F>
static float median_ms(F&& launch) {
  cudaEvent_t s, e;
  CK(cudaEventCreate(&s));
  CK(cudaEventCreate(&e));
  for (int w = 0; w < 3; ++w) {
    flush();
    launch();
  }
  std::vector<float> v;
  for (int it = 0; it < 20; ++it) {
    flush();
    CK(cudaEventRecord(s));
    launch();
    CK(cudaEventRecord(e));
    CK(cudaEventSynchronize(e));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, s, e));
    v.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(v.begin(), v.end());
  CK(cudaEventDestroy(s));
  CK(cudaEventDestroy(e));
  return 0.5f * (v[9] + v[10]);
}

struct Ctx {
  const float* in;
  float* out;
  const float* ref;
  float* res;
  int m, n;
  double memcpy_gbs;
};

template <int KS, int ROWS, bool PIPE>
static void bench(const Ctx& c, const char* label) {
  auto kern = conv2d_shared_reg<KS, ROWS, PIPE>;
  const size_t smem = shared_bytes(KS, ROWS, PIPE);
  CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, kBlockX * kBlockY, smem));
  cudaFuncAttributes fa{};
  CK(cudaFuncGetAttributes(&fa, kern));
  const dim3 grid = grid_for(c.m, c.n, ROWS, PIPE, per_sm * g_sms), block(kBlockX, kBlockY);
  auto launch = [&] { kern<<<grid, block, smem>>>(c.in, c.out, c.m, c.n); };
  CK(cudaMemset(c.out, 0xff, size_t(c.m) * c.n * 4));  // NaN poison
  launch();
  CK(cudaGetLastError());
  CK(cudaMemset(c.res, 0, 8));
  maxabs_diff<<<g_sms * 4, 256>>>(c.out, c.ref, size_t(c.m) * c.n, c.res);
  float h[2];
  CK(cudaMemcpy(h, c.res, 8, cudaMemcpyDeviceToHost));
  const double rel = h[1] > 0 ? h[0] / h[1] : h[0];
  const bool ok = std::isfinite(h[0]) && rel < 1e-5;  // NaN bit patterns compare max as int: caught
  const float ms = median_ms(launch);
  const double gbs = 2.0 * c.m * c.n * 4 / (ms * 1e-3) / 1e9;
  const double tflops = 2.0 * KS * KS * double(c.m) * c.n / (ms * 1e-3) / 1e12;
  std::printf(
      "k=%d %-16s regs=%3d smem=%6zu blk/SM=%d grid=%ux%u  %s relerr=%.2e  %.4f ms  %7.1f GB/s  "
      "%5.1f %%  %5.1f TFLOP/s\n",
      KS, label, fa.numRegs, smem, per_sm, grid.x, grid.y, ok ? "OK  " : "FAIL", rel, ms, gbs,
      100.0 * gbs / c.memcpy_gbs, tflops);
}

template <int KS>
static void run_ks(Ctx c, std::mt19937& rng) {
  std::uniform_real_distribution<float> U(-1.0f, 1.0f);
  std::vector<float> w(KS * KS);
  for (auto& x : w) x = U(rng);
  CK(cudaMemcpyToSymbol(c_weights_reg, w.data(), w.size() * sizeof(float)));
  naive<<<dim3((c.n + 31) / 32, (c.m + 7) / 8), dim3(32, 8)>>>(c.in, const_cast<float*>(c.ref), c.m,
                                                               c.n, KS);
  CK(cudaDeviceSynchronize());
  bench<KS, 4, false>(c, "R4 (plain)");
  bench<KS, 8, false>(c, "R8");
  bench<KS, 16, false>(c, "R16");
  bench<KS, 4, true>(c, "R4 pipe");
  bench<KS, 8, true>(c, "R8 pipe");
}

int main(int argc, char** argv) {
  const int N = argc > 1 ? std::atoi(argv[1]) : 8192;
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  g_sms = prop.multiProcessorCount;
  std::printf("%s, %d SMs, image %dx%d\n", prop.name, g_sms, N, N);
  g_flush_count = (128u << 20) / sizeof(float4);
  CK(cudaMalloc(&g_flush, g_flush_count * sizeof(float4)));
  CK(cudaMemset(g_flush, 0, g_flush_count * sizeof(float4)));
  CK(cudaMalloc(&g_sink, 4));

  // D2D memcpy of 1 GiB: GB/s counted as read + write.
  const size_t gib = size_t(1) << 30;
  void *a, *b;
  CK(cudaMalloc(&a, gib));
  CK(cudaMalloc(&b, gib));
  CK(cudaMemset(a, 1, gib));
  const float cms = median_ms([&] { CK(cudaMemcpyAsync(b, a, gib, cudaMemcpyDeviceToDevice)); });
  const double memcpy_gbs = 2.0 * gib / (cms * 1e-3) / 1e9;
  std::printf("memcpy D2D 1 GiB: %.3f ms, %.1f GB/s (read+write); 90%% = %.1f\n", cms, memcpy_gbs,
              0.9 * memcpy_gbs);
  CK(cudaFree(a));
  CK(cudaFree(b));

  const size_t count = size_t(N) * N;
  std::vector<float> h(count);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> U(-1.0f, 1.0f);
  for (auto& x : h) x = U(rng);
  float *in, *out, *ref, *res;
  CK(cudaMalloc(&in, count * 4));
  CK(cudaMalloc(&out, count * 4));
  CK(cudaMalloc(&ref, count * 4));
  CK(cudaMalloc(&res, 8));
  CK(cudaMemcpy(in, h.data(), count * 4, cudaMemcpyHostToDevice));
  Ctx c{in, out, ref, res, N, N, memcpy_gbs};
  run_ks<3>(c, rng);
  run_ks<5>(c, rng);
  run_ks<7>(c, rng);
  // Odd sizes (non-multiple-of-4 and partial tiles) correctness, k=5 and 7, all instances.
  for (int mm : {1000, 131}) {
    Ctx d = c;
    d.m = mm;
    d.n = mm == 131 ? 133 : 1000;
    std::printf("-- %dx%d (correctness; timings meaningless)\n", d.m, d.n);
    run_ks<5>(d, rng);
    run_ks<7>(d, rng);
  }
  return 0;
}
