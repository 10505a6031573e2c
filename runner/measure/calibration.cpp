#include "runner/measure/calibration.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "runner/api/gpu_info.hpp"
#include "runner/base/build_info.hpp"
#include "runner/base/durable_file.hpp"
#include "runner/base/interrupt.hpp"
#include "runner/measure/calibration_cpu.hpp"
#include "runner/measure/environment.hpp"
#ifdef RUNNER_HAVE_CUDA
#include "runner/measure/calibration_gpu.hpp"
#endif

namespace runner {

namespace {

// A calibration takes seconds; one that has not ended after this long is hung (a broken GPU).
constexpr double kCalibrationTimeoutSeconds = 900;

nlohmann::ordered_json document_head(const char* kind, const std::string& device) {
  nlohmann::ordered_json doc;
  doc["kind"] = kind;
  doc["device"] = device;
  doc["measured"] = utc_now();
  doc["host"] = environment().host;
  doc["runner_version"] = build_info::kVersion;
  doc["git_revision"] = build_info::kGitRevision;
  return doc;
}

// Holds an exclusive flock on DIR/.lock for its lifetime.
class FolderLock {
 public:
  explicit FolderLock(const std::filesystem::path& dir) {
    fd_ = ::open((dir / ".lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~FolderLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

// Measures the missing documents in a child process and writes them. Returns false when the child
// failed, hung or was interrupted (after a warning).
bool measure_in_child(const std::filesystem::path& gpu_file, const std::filesystem::path& cpu_file,
                      int cores) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    spdlog::warn("cannot start the calibration: fork failed");
    return false;
  }
  if (pid == 0) {
    // Each device on its own: a GPU that cannot be calibrated leaves the CPU's figures standing.
    int code = 0;
    auto measure_one = [&](const std::filesystem::path& file, auto&& calibrate) {
      if (file.empty()) return;
      try {
        write_file_atomically(file, calibrate().dump(2) + "\n");
      } catch (const std::exception& e) {
        fmt::print(stderr, "warning: calibration failed: {}\n", e.what());
        code = 1;
      }
    };
    measure_one(gpu_file, [] { return calibrate_gpu(); });
    measure_one(cpu_file, [&] { return calibrate_cpu(cores); });
    std::fflush(stderr);
    ::_exit(code);
  }
  const auto t0 = std::chrono::steady_clock::now();
  while (true) {
    int status = 0;
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (interrupt_requested() || waited > kCalibrationTimeoutSeconds) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      if (!interrupt_requested())
        spdlog::warn("the calibration did not end within {:.0f} s: stopped",
                     kCalibrationTimeoutSeconds);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

std::string model_slug(std::string_view model) {
  std::string slug;
  for (char c : model) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u))
      slug += static_cast<char>(std::tolower(u));
    else if (!slug.empty() && slug.back() != '-')
      slug += '-';
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug.empty() ? "unknown" : slug;
}

std::filesystem::path gpu_calibration_path(const std::filesystem::path& dir,
                                           std::string_view gpu_name) {
  return dir / ("gpu-" + model_slug(gpu_name) + ".json");
}

std::filesystem::path cpu_calibration_path(const std::filesystem::path& dir,
                                           std::string_view cpu_model, int cores) {
  return dir / fmt::format("cpu-{}-{}c.json", model_slug(cpu_model), cores);
}

std::filesystem::path default_calibration_dir() {
  const char* dir = std::getenv("RUNNER_CALIBRATION_DIR");
  return dir && *dir ? std::filesystem::path(dir)
                     : std::filesystem::path("results") / "calibration";
}

double theoretical_bw_gbps(double memory_clock_mhz, double memory_bus_bits) {
  return memory_clock_mhz * 1e6 * (memory_bus_bits / 8) * 2 / 1e9;
}

nlohmann::ordered_json calibrate_gpu() {
#ifdef RUNNER_HAVE_CUDA
  const GpuInfo& gpu = gpu_info();
  if (!gpu.present) throw std::runtime_error("no GPU to calibrate: " + gpu.absent_reason);
  const cuda::GpuCeilingFigures f = cuda::measure_gpu_ceilings();
  nlohmann::ordered_json doc = document_head("gpu", gpu.name);
  doc["gpu"] = gpu.to_json();
  doc["sm_clock_mhz"] = f.sm_clock_mhz > 0 ? nlohmann::ordered_json(f.sm_clock_mhz) : nullptr;
  doc["samples"] = f.samples;
  doc["ceilings"] = {
      {"copy_gbps", f.copy_gbps},
      {"fp32_fma_gflops", f.fp32_fma_gflops},
      {"fp64_fma_gflops", f.fp64_fma_gflops},
      {"sgemm_gflops", f.sgemm_gflops},
      {"sgemm_tf32_gflops", f.sgemm_tf32_gflops},
      {"dgemm_gflops", f.dgemm_gflops},
      {"theoretical_bw_gbps", theoretical_bw_gbps(gpu.memory_clock_mhz, gpu.memory_bus_bits)},
  };
  doc["method"] = {
      {"copy_gbps", fmt::format("cudaMemcpyAsync device to device of {} GiB, bytes read + written",
                                cuda::kCopyBytes >> 30)},
      {"fp32_fma_gflops",
       fmt::format("{} independent FMA chains per thread, 2048 threads per SM, 2 flops per FMA",
                   cuda::kFmaChains)},
      {"fp64_fma_gflops", "as fp32_fma_gflops, in double"},
      {"sgemm_gflops",
       fmt::format("cuBLAS SGEMM {0}x{0}x{0}, CUBLAS_PEDANTIC_MATH (no TF32)", cuda::kGemmSize)},
      {"sgemm_tf32_gflops",
       fmt::format("cuBLAS SGEMM {0}x{0}x{0}, CUBLAS_TF32_TENSOR_OP_MATH", cuda::kGemmSize)},
      {"dgemm_gflops",
       fmt::format("cuBLAS DGEMM {0}x{0}x{0}, CUBLAS_DEFAULT_MATH", cuda::kGemmSize)},
      {"theoretical_bw_gbps", "memory clock x bus width x 2 (device properties, not measured)"},
      {"statistic",
       fmt::format("median of {} samples (CUDA events, launch guard) after 3 warm-ups", f.samples)},
  };
  return doc;
#elif defined(RUNNER_HAVE_HIP)
  throw std::runtime_error("no GPU calibration in HIP builds yet: records of HIP points get no "
                           "GPU pct_peak_* (docs/hip.md)");
#else
  throw std::runtime_error("no GPU to calibrate: built without CUDA");
#endif
}

nlohmann::ordered_json calibrate_cpu(int cores) {
  const Environment& env = environment();
  nlohmann::ordered_json doc = document_head("cpu", env.cpu_model);
  doc["cores"] = cores;
  doc["omp_proc_bind"] = env.omp_proc_bind;
  doc["omp_places"] = env.omp_places;
  nlohmann::ordered_json by_threads = nlohmann::ordered_json::array();
  for (const CpuCeilingsAt& c : measure_cpu_ceilings(calibration_thread_counts(cores)))
    by_threads.push_back({{"threads", c.threads},
                          {"copy_gbps", c.copy_gbps},
                          {"sgemm_gflops", c.sgemm_gflops},
                          {"dgemm_gflops", c.dgemm_gflops},
                          {"sgemm_n", c.sgemm_n},
                          {"dgemm_n", c.dgemm_n}});
  doc["ceilings"] = by_threads;
  doc["method"] = {
      {"copy_gbps",
       "OpenMP a[i] = b[i] on doubles, arrays of max(64 MiB, 4 x last-level cache), bytes read + "
       "written"},
      {"sgemm_gflops",
       "OpenBLAS cblas_sgemm n x n x n, n from 1024 doubling until a call takes 50 ms; best size"},
      {"dgemm_gflops", "as sgemm_gflops, cblas_dgemm"},
      {"statistic", "best of the repetitions after a warm-up (copy 5, GEMM 3)"},
  };
  return doc;
}

nlohmann::ordered_json read_calibration(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return nullptr;
  try {
    return nlohmann::ordered_json::parse(in);
  } catch (const nlohmann::json::exception&) {
    return nullptr;
  }
}

CalibrationNeeds calibration_needs(const std::vector<Point>& points, const Registry& registry,
                                   const nlohmann::json& environment) {
  CalibrationNeeds needs;
  const bool have_gpu = environment.contains("gpu") && environment["gpu"].value("present", false);
  for (const Point& p : points) {
    const KernelInfo* k = registry.find(p.kernel);
    const VariantInfo* v = k ? k->find_variant(p.variant) : nullptr;
    if (!v || !v->factory) continue;
    if (is_gpu(v->backend))  // GPU ceilings are measured on CUDA devices only (docs/hip.md)
      needs.gpu = needs.gpu || (have_gpu && v->backend == Backend::cuda);
    else
      needs.cpu = true;
  }
  return needs;
}

std::string attached_cuda_tool() {
  // Nsight Compute and Nsight Systems load themselves into the CUDA driver through its injection
  // variable; compute-sanitizer through its own (seen with CUDA 13.0: NV_SANITIZER_INJECTION_*,
  // NVTX_INJECTION64_PATH=libsanitizer-collection.so), older ones through LD_PRELOAD.
  for (const char* name : {"CUDA_INJECTION64_PATH", "NV_SANITIZER_INJECTION_PORT_BASE",
                           "NVTX_INJECTION64_PATH", "LD_PRELOAD"}) {
    const char* value = std::getenv(name);
    if (!value || !*value) continue;
    const std::string_view variable = name, text = value;
    const bool names_a_tool = variable == "CUDA_INJECTION64_PATH" ||
                              variable == "NV_SANITIZER_INJECTION_PORT_BASE" ||
                              text.find("sanitizer") != std::string_view::npos;
    if (names_a_tool) return fmt::format("{}={}", variable, text);
  }
  return "";
}

nlohmann::ordered_json calibration_for_run(const std::filesystem::path& dir,
                                           const nlohmann::json& environment,
                                           CalibrationNeeds needs, bool measure_missing) {
  nlohmann::ordered_json out;
  out["dir"] = dir.string();
  out["gpu"] = nullptr;
  out["cpu"] = nullptr;
  out["theoretical_bw_gbps"] = nullptr;
  if (!needs.gpu && !needs.cpu) return out;
  const nlohmann::json gpu = environment.value("gpu", nlohmann::json::object());
  if (needs.gpu && gpu.value("memory_clock_mhz", 0) > 0)
    out["theoretical_bw_gbps"] =
        theoretical_bw_gbps(gpu.value("memory_clock_mhz", 0), gpu.value("memory_bus_bits", 0));
  const int cores = environment.value("cores", 1);
  std::filesystem::path gpu_file =
      needs.gpu ? gpu_calibration_path(dir, gpu.value("name", "")) : std::filesystem::path();
  const std::filesystem::path cpu_file =
      needs.cpu ? cpu_calibration_path(dir, environment.value("cpu_model", ""), cores)
                : std::filesystem::path();

  auto missing = [](const std::filesystem::path& f) {
    return !f.empty() && read_calibration(f).is_null();
  };
  // Under compute-sanitizer or Nsight Compute every cuBLAS kernel is instrumented (the SGEMM
  // ceiling came out 60 x too low under memcheck): figures measured there would be cached and
  // then used by every later run on the node. Measure the GPU only without such a tool.
  if (measure_missing && missing(gpu_file)) {
    if (const std::string tool = attached_cuda_tool(); !tool.empty()) {
      spdlog::warn(
          "GPU not calibrated: a CUDA tool is attached ({}), under which its figures "
          "would be wrong; records get no GPU pct_peak_* (run once without it)",
          tool);
      gpu_file.clear();
    }
  }
  if (measure_missing && (missing(gpu_file) || missing(cpu_file))) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const FolderLock lock(dir);
    // Another run may have measured while this one waited for the lock.
    const std::filesystem::path measure_gpu =
        missing(gpu_file) ? gpu_file : std::filesystem::path();
    const std::filesystem::path measure_cpu =
        missing(cpu_file) ? cpu_file : std::filesystem::path();
    if (!measure_gpu.empty() || !measure_cpu.empty()) {
      spdlog::info("calibrating {} once: no ceilings in {} yet (runner calibrate re-measures them)",
                   !measure_gpu.empty() && !measure_cpu.empty() ? "the GPU and the CPU"
                   : !measure_gpu.empty()                       ? "the GPU"
                                                                : "the CPU",
                   dir.string());
      if (!measure_in_child(measure_gpu, measure_cpu, cores))
        spdlog::warn(
            "calibration incomplete: records of a device without ceilings get no pct_peak_*");
    }
  }
  if (!gpu_file.empty()) out["gpu"] = read_calibration(gpu_file);
  if (!cpu_file.empty()) out["cpu"] = read_calibration(cpu_file);
  return out;
}

}  // namespace runner
