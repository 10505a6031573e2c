// The GPU ceilings: a device-to-device copy, the FMA peak of FP32 and FP64, and cuBLAS GEMM in
// three flavours, each timed with CUDA events after warm-ups (median of kSamples).
#include "runner/measure/calibration_gpu.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "runner/api/cuda/cuda_check.hpp"
#include "runner/api/cuda/detail/event_clock.hpp"
#include "runner/api/cuda/device_buffer.hpp"
#include "runner/api/gpu_info.hpp"
#include "runner/measure/device_monitor.hpp"
#include "runner/measure/statistics.hpp"

namespace runner::cuda {

namespace {

constexpr int kWarmups = 3;
constexpr int kSamples = 20;
// The FMA kernels run this long per launch: far above launch overhead and timer resolution.
constexpr double kFmaLaunchMs = 20.0;

void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(fmt::format("cuBLAS error {} ({}) in {}", cublasGetStatusName(status),
                                         cublasGetStatusString(status), call));
}
#define RUNNER_CALIBRATION_CUBLAS(call) check_cublas((call), #call)

class Stream {
 public:
  Stream() { RUNNER_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// Median milliseconds of one `work()` after the warm-ups, each sample guarded like a point's
// sample (runner/api/cuda/detail/launch_guard.hpp). The SM clock, when NVML is there, is read after
// each.
class Timer {
 public:
  explicit Timer(cudaStream_t stream)
      : stream_(stream),
        clock_(stream, launch_guard_enabled() ? EventClock::Guard::launch_guard
                                              : EventClock::Guard::none) {}

  double median_ms(const std::function<void()>& work) {
    // One run outside the guard: a library's first call may wait for the stream (allocations,
    // module loading) and would only wait out the guard's timeout.
    work();
    RUNNER_CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (int i = 0; i < kWarmups; ++i) {
      clock_.start();
      work();
      clock_.stop_ms();
    }
    std::vector<double> samples;
    for (int i = 0; i < kSamples; ++i) {
      clock_.start();
      work();
      samples.push_back(clock_.stop_ms());
      if (DeviceMonitor* monitor = gpu_monitor())
        if (const auto mhz = monitor->sm_clock_mhz()) clocks_.push_back(*mhz);
    }
    const SampleStats stats = summarize(samples);
    // The CPU figures' spread (calibration_cpu.cpp): the median over the best, less one. Not the
    // RSD, which one slow sample of 20 (a clock ramping, a driver's housekeeping) pushes past the
    // 5 % a calibration is judged noisy at (5.4 % on an idle H200) while the median is unmoved.
    if (stats.min > 0) worst_spread_ = std::max(worst_spread_, stats.median / stats.min - 1);
    return stats.median;
  }
  // The largest spread of any figure's samples: a calibration's noise.
  double worst_spread() const { return worst_spread_; }
  double mean_clock_mhz() const {
    if (clocks_.empty()) return 0;
    double sum = 0;
    for (double c : clocks_) sum += c;
    return sum / static_cast<double>(clocks_.size());
  }

 private:
  cudaStream_t stream_;
  EventClock clock_;
  std::vector<double> clocks_;
  double worst_spread_ = 0;
};

double copy_gbps(Timer& timer, cudaStream_t stream) {
  DeviceBuffer<unsigned char> src(kCopyBytes), dst(kCopyBytes);
  RUNNER_CUDA_CHECK(cudaMemsetAsync(src.data(), 0x5A, kCopyBytes, stream));
  const double ms = timer.median_ms([&] {
    RUNNER_CUDA_CHECK(
        cudaMemcpyAsync(dst.data(), src.data(), kCopyBytes, cudaMemcpyDeviceToDevice, stream));
  });
  return 2.0 * static_cast<double>(kCopyBytes) / (ms * 1e6);
}

template <typename T>
double fma_gflops(Timer& timer, cudaStream_t stream,
                  void (*launch)(dim3, dim3, int, T*, cudaStream_t)) {
  // Full occupancy: 2048 threads per SM on every GPU since Volta except the consumer parts,
  // where the blocks simply queue.
  const dim3 block(256), grid(static_cast<unsigned>(8 * std::max(gpu_info().sm_count, 1)));
  DeviceBuffer<T> sink(1);
  // Size the launch from a short one: kFmaLaunchMs per launch.
  EventClock probe(stream);
  int iterations = 256;
  for (int attempt = 0; attempt < 8; ++attempt) {
    probe.start();
    launch(grid, block, iterations, sink.data(), stream);
    RUNNER_CUDA_CHECK_LAUNCH();
    const double ms = probe.stop_ms();
    if (ms >= kFmaLaunchMs / 4) {
      iterations = static_cast<int>(std::min(1e9, std::ceil(iterations * kFmaLaunchMs / ms)));
      break;
    }
    iterations *= 8;
  }
  const double ms = timer.median_ms([&] {
    launch(grid, block, iterations, sink.data(), stream);
    RUNNER_CUDA_CHECK_LAUNCH();
  });
  const double fmas = static_cast<double>(grid.x) * block.x * iterations * kFmaUnroll * kFmaChains;
  return 2.0 * fmas / (ms * 1e6);
}

enum class GemmKind { sgemm_pedantic, sgemm_tf32, dgemm };

template <typename T>
double gemm_gflops(Timer& timer, cudaStream_t stream, cublasHandle_t handle, GemmKind kind) {
  constexpr int n = kGemmSize;
  const std::size_t elements = static_cast<std::size_t>(n) * n;
  DeviceBuffer<T> a(elements), b(elements), c(elements);
  if constexpr (std::is_same_v<T, float>) {
    launch_fill_uniform_f32(a.data(), elements, 1, stream);
    launch_fill_uniform_f32(b.data(), elements, 2, stream);
  } else {
    launch_fill_uniform_f64(a.data(), elements, 1, stream);
    launch_fill_uniform_f64(b.data(), elements, 2, stream);
  }
  RUNNER_CUDA_CHECK_LAUNCH();
  RUNNER_CALIBRATION_CUBLAS(cublasSetStream(handle, stream));
  // The same math modes as the gemm kernel's cublas variant, plus TF32 for the tensor-core figure.
  const cublasMath_t math = kind == GemmKind::sgemm_pedantic ? CUBLAS_PEDANTIC_MATH
                            : kind == GemmKind::sgemm_tf32   ? CUBLAS_TF32_TENSOR_OP_MATH
                                                             : CUBLAS_DEFAULT_MATH;
  RUNNER_CALIBRATION_CUBLAS(cublasSetMathMode(handle, math));
  const T one = 1, zero = 0;
  const double ms = timer.median_ms([&] {
    if constexpr (std::is_same_v<T, float>)
      RUNNER_CALIBRATION_CUBLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one,
                                            a.data(), n, b.data(), n, &zero, c.data(), n));
    else
      RUNNER_CALIBRATION_CUBLAS(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one,
                                            a.data(), n, b.data(), n, &zero, c.data(), n));
  });
  return 2.0 * n * static_cast<double>(n) * n / (ms * 1e6);
}

}  // namespace

GpuCeilingFigures measure_gpu_ceilings() {
  if (!gpu_info().present)
    throw std::runtime_error("no GPU to calibrate: " + gpu_info().absent_reason);
  Stream stream;
  Timer timer(stream.get());
  GpuCeilingFigures f;
  f.samples = kSamples;
  f.copy_gbps = copy_gbps(timer, stream.get());
  f.fp32_fma_gflops = fma_gflops<float>(timer, stream.get(), launch_fma_peak_f32);
  f.fp64_fma_gflops = fma_gflops<double>(timer, stream.get(), launch_fma_peak_f64);
  cublasHandle_t handle = nullptr;
  RUNNER_CALIBRATION_CUBLAS(cublasCreate(&handle));
  try {
    f.sgemm_gflops = gemm_gflops<float>(timer, stream.get(), handle, GemmKind::sgemm_pedantic);
    f.sgemm_tf32_gflops = gemm_gflops<float>(timer, stream.get(), handle, GemmKind::sgemm_tf32);
    f.dgemm_gflops = gemm_gflops<double>(timer, stream.get(), handle, GemmKind::dgemm);
  } catch (...) {
    cublasDestroy(handle);
    throw;
  }
  RUNNER_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  cublasDestroy(handle);
  f.sm_clock_mhz = timer.mean_clock_mhz();
  f.spread = timer.worst_spread();
  return f;
}

}  // namespace runner::cuda
