#include "runner/measure/calibration.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "runner/api/gpu_info.hpp"
#include "runner/base/build_info.hpp"
#include "runner/base/durable_file.hpp"
#include "runner/base/interrupt.hpp"
#include "runner/measure/calibration_cpu.hpp"
#include "runner/measure/calibration_quality.hpp"
#include "runner/measure/environment.hpp"
#include "runner/measure/host_facts.hpp"
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

// Measures the devices of `keys` in a child process (one that may initialise CUDA), which judges
// and stores them. Returns false when the child failed, hung or was interrupted (after a warning).
bool measure_in_child(const CalibrationStore& store, const std::vector<CalibrationKey>& keys,
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
    for (const auto& key : keys) {
      try {
        const CalibrationResult m = calibrate_and_store(store, key, cores, false);
        if (!m.decision.message.empty()) fmt::print(stderr, "warning: {}\n", m.decision.message);
      } catch (const std::exception& e) {
        fmt::print(stderr, "warning: calibration of the {} failed: {}\n", key.kind, e.what());
        code = 1;
      }
    }
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

// The calibration files (by name: host and device) this process has measured: a run measures each
// device once, whatever asks again (the run's CPU and first GPU, then each GPU slot, which may be
// the same GPU).
std::set<std::filesystem::path>& measured_by_this_process() {
  static std::set<std::filesystem::path> files;
  return files;
}

// Why a stored calibration should be measured again before a run uses it; empty: it is fine.
std::string reason_to_measure_again(const StoredCalibration& stored) {
  if (measured_by_this_process().contains(stored.file.filename())) return "";
  std::error_code ec;
  const auto written = std::filesystem::last_write_time(stored.file, ec);
  const auto age = ec ? kRemeasureNoisyAfter
                      : std::chrono::duration_cast<std::chrono::seconds>(
                            std::filesystem::file_time_type::clock::now() - written);
  return why_measure_again(nlohmann::json(stored.doc), age,
                           [] { return other_processes_cores_now(0.5) <= kMaxOtherProcessCores; });
}
}  // namespace

double theoretical_bw_gbps(double memory_clock_mhz, double memory_bus_bits) {
  return memory_clock_mhz * 1e6 * (memory_bus_bits / 8) * 2 / 1e9;
}

nlohmann::ordered_json calibrate_gpu() {
#ifdef RUNNER_HAVE_CUDA
  const GpuInfo& gpu = gpu_info();
  if (!gpu.present) throw std::runtime_error("no GPU to calibrate: " + gpu.absent_reason);
  const ConditionWatch watch;
  const cuda::GpuCeilingFigures f = cuda::measure_gpu_ceilings();
  nlohmann::ordered_json doc = document_head("gpu", gpu.name);
  doc["conditions"] = watch.stop();
  doc["spread"] = f.spread;
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
  throw std::runtime_error(
      "no GPU calibration in HIP builds yet: records of HIP points get no "
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
  doc["last_level_cache_bytes"] = last_level_cache_bytes();
  nlohmann::ordered_json by_threads = nlohmann::ordered_json::array();
  const ConditionWatch watch;
  for (const CpuCeilingsAt& c : measure_cpu_ceilings(calibration_thread_counts(cores)))
    by_threads.push_back({{"threads", c.threads},
                          {"copy_gbps", c.copy_gbps},
                          {"sgemm_gflops", c.sgemm_gflops},
                          {"dgemm_gflops", c.dgemm_gflops},
                          {"sgemm_n", c.sgemm_n},
                          {"dgemm_n", c.dgemm_n},
                          {"copy_spread", c.copy_spread},
                          {"sgemm_spread", c.sgemm_spread},
                          {"dgemm_spread", c.dgemm_spread}});
  doc["conditions"] = watch.stop();
  doc["ceilings"] = by_threads;
  doc["method"] = {
      {"copy_gbps",
       "OpenMP a[i] = b[i] on doubles, arrays of max(64 MiB, 4 x last-level cache), bytes read + "
       "written"},
      {"sgemm_gflops",
       "OpenBLAS cblas_sgemm n x n x n, n from 1024 doubling until a call takes 50 ms; best size"},
      {"dgemm_gflops", "as sgemm_gflops, cblas_dgemm"},
      {"statistic",
       "best of the repetitions after a warm-up (copy 5, GEMM 3); *_spread: the median "
       "repetition / the best - 1"},
  };
  return doc;
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

int calibration_attempts() {
  if (const char* text = std::getenv("RUNNER_CALIBRATION_ATTEMPTS"); text && *text) {
    try {
      return std::clamp(std::stoi(text), 1, 10);
    } catch (const std::exception&) {
    }
  }
  return 3;
}

nlohmann::ordered_json calibrate_judged(const std::string& kind, int cores,
                                        const nlohmann::json& previous, int attempts) {
  const nlohmann::json observed = previous.is_object()
                                      ? previous.value("observed", nlohmann::json::object())
                                      : nlohmann::json::object();
  const double core_peak = cpu_core_peak_sp_gflops();
  nlohmann::ordered_json best;
  CalibrationJudgement best_judgement;
  int made = 0;
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    nlohmann::ordered_json doc = kind == "gpu" ? calibrate_gpu() : calibrate_cpu(cores);
    ++made;
    const CalibrationJudgement j = kind == "gpu"
                                       ? judge_gpu_calibration(doc, previous, observed)
                                       : judge_cpu_calibration(doc, previous, observed, core_peak);
    // The attempt to keep: plausible before implausible, then the fewest reasons. Every figure of
    // a document comes from one attempt, measured in the conditions it records.
    const auto rank = [](const CalibrationJudgement& x) {
      return std::pair{x.implausible.size(), x.noisy.size()};
    };
    if (best.is_null() || rank(j) < rank(best_judgement)) {
      best = std::move(doc);
      best_judgement = j;
    }
    if (best_judgement.quiet() && best_judgement.plausible()) break;
    if (attempt < attempts)
      spdlog::info("calibration of the {}: measuring again ({})", kind,
                   !j.implausible.empty() ? j.implausible.front() : j.noisy.front());
  }
  const bool plausible = best_judgement.plausible();
  nlohmann::ordered_json reasons = nlohmann::ordered_json::array();
  for (const auto& r : best_judgement.implausible) reasons.push_back(r);
  for (const auto& r : best_judgement.noisy) reasons.push_back(r);
  best["verdict"] = {{"state", !plausible               ? "refused"
                               : best_judgement.quiet() ? "quiet"
                                                        : "provisional"},
                     {"reasons", reasons},
                     {"attempts", made}};
  // What the machine was seen to do stays with its device, whatever is measured.
  if (!observed.empty()) best["observed"] = observed;
  return best;
}

CalibrationDecision decide_calibration(const nlohmann::json& judged,
                                       const std::optional<StoredCalibration>& previous,
                                       bool force) {
  const nlohmann::json verdict = judged.value("verdict", nlohmann::json::object());
  const std::string state = verdict.value("state", "quiet");
  std::string reasons;
  for (const auto& r : verdict.value("reasons", nlohmann::json::array()))
    reasons += (reasons.empty() ? "" : "; ") + r.get<std::string>();
  const std::string device = judged.value("kind", std::string("device"));
  if (force)
    return {true, state == "quiet" ? ""
                                   : fmt::format("{} calibration stored although {} (--force)",
                                                 device, reasons)};
  if (state == "refused")
    return {
        false,
        fmt::format("{} calibration refused: {}. {}", device, reasons,
                    previous ? "Kept the calibration of " +
                                   previous->doc.value("measured", std::string("before")) + " (" +
                                   previous->file.string() + ")"
                             : std::string("No ceilings for it: records get no pct_peak_*")),
    };
  if (state == "provisional") {
    if (previous && calibration_is_quiet(previous->doc) && !calibration_is_stale(previous->doc))
      return {false, fmt::format("{} calibration measured under load, not stored: {}. Kept the "
                                 "quiet calibration of {} ({})",
                                 device, reasons, previous->doc.value("measured", std::string()),
                                 previous->file.string())};
    return {true, fmt::format("{} calibration stored as provisional: {}. Records above these "
                              "ceilings say so; the first run on a quiet machine measures again",
                              device, reasons)};
  }
  return {true, ""};
}

CalibrationResult calibrate_and_store(const CalibrationStore& store, const CalibrationKey& key,
                                      int cores, bool force) {
  const std::optional<StoredCalibration> previous = store.find(key);
  const nlohmann::ordered_json previous_doc =
      previous ? previous->doc : nlohmann::ordered_json(nullptr);
  CalibrationResult r;
  r.doc = calibrate_judged(key.kind, cores, previous_doc, calibration_attempts());
  r.decision = decide_calibration(r.doc, previous, force);
  if (r.decision.store) r.file = store.store(key, r.doc);
  return r;
}

nlohmann::ordered_json calibration_for_run(const std::filesystem::path& explicit_dir,
                                           const nlohmann::json& environment,
                                           CalibrationNeeds needs, bool measure,
                                           const std::filesystem::path& results_folder) {
  const CalibrationStore store(explicit_dir);
  nlohmann::ordered_json out;
  out["store"] = store.describe();
  out["dir"] = store.write_folder().string();
  out["gpu"] = nullptr;
  out["cpu"] = nullptr;
  out["theoretical_bw_gbps"] = nullptr;
  out["files"] = nlohmann::ordered_json::object();
  if (!needs.gpu && !needs.cpu) return out;
  const nlohmann::json gpu = environment.value("gpu", nlohmann::json::object());
  if (needs.gpu && gpu.value("memory_clock_mhz", 0) > 0)
    out["theoretical_bw_gbps"] =
        theoretical_bw_gbps(gpu.value("memory_clock_mhz", 0), gpu.value("memory_bus_bits", 0));
  const int cores = environment.value("cores", 1);
  const std::string host = environment.value("host", "");
  std::vector<CalibrationKey> keys;
  if (needs.gpu)
    keys.push_back(gpu_calibration_key(host, gpu.value("name", ""), gpu.value("uuid", "")));
  if (needs.cpu)
    keys.push_back(cpu_calibration_key(host, environment.value("cpu_model", ""), cores));

  // What to measure, and why.
  auto to_measure = [&] {
    std::vector<std::pair<CalibrationKey, std::string>> list;
    for (const auto& key : keys) {
      const auto stored = store.find(key);
      const std::string why =
          !stored ? "none is stored for this machine yet" : reason_to_measure_again(*stored);
      if (why.empty()) continue;
      // Under compute-sanitizer or Nsight Compute every cuBLAS kernel is instrumented (the SGEMM
      // ceiling came out 60 x too low under memcheck): figures measured there would be kept and
      // then used by every later run on the node. Measure the GPU only without such a tool.
      if (key.kind == "gpu")
        if (const std::string tool = attached_cuda_tool(); !tool.empty()) {
          spdlog::warn(
              "GPU not calibrated: a CUDA tool is attached ({}), under which its "
              "figures would be wrong; {} (run once without it)",
              tool, stored ? "the stored ones are used" : "records get no GPU pct_peak_*");
          continue;
        }
      list.emplace_back(key, why);
    }
    return list;
  };
  if (measure && !to_measure().empty()) {
    const CalibrationLock lock(store.write_folder());
    // Another run may have measured while this one waited for the lock.
    std::vector<CalibrationKey> measuring;
    std::string what;
    for (const auto& [key, why] : to_measure()) {
      measuring.push_back(key);
      what += fmt::format("{}the {} {}: {}", what.empty() ? "" : "; ", key.kind, key.device, why);
    }
    if (!measuring.empty()) {
      spdlog::info(
          "calibrating {} (into {}; runner calibrate --check says how the stored ones "
          "stand)",
          what, store.write_folder().string());
      for (const auto& key : measuring)
        measured_by_this_process().insert(store.file_for(key).filename());
      if (!measure_in_child(store, measuring, cores))
        spdlog::warn(
            "calibration incomplete: records of a device without ceilings get no pct_peak_*");
    }
  }
  for (const auto& key : keys) {
    const auto stored = store.find(key);
    if (!stored) continue;
    out[key.kind] = stored->doc;
    out["files"][key.kind] = stored->file.string();
    // The run's own copy: its records' ceilings stay explained wherever the folder goes.
    if (!results_folder.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(results_folder / "calibration", ec);
      write_file_atomically(results_folder / "calibration" / stored->file.filename(),
                            stored->doc.dump(2) + "\n");
    }
  }
  return out;
}

}  // namespace runner
