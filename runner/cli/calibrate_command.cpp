// `runner calibrate`: measures the ceilings of this machine's GPUs (each one it sees) and CPU,
// judges them and keeps them where runs look for them (runner/measure/calibration.hpp,
// calibration_store.hpp).
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

#include "runner/api/gpu_info.hpp"
#include "runner/base/exit_codes.hpp"
#include "runner/base/forked_call.hpp"
#include "runner/cli/commands.hpp"
#include "runner/measure/calibration.hpp"
#include "runner/measure/environment.hpp"
#include "runner/measure/gpu_devices.hpp"
#include "runner/results/record.hpp"

namespace runner::cli {

namespace {

// One GPU's calibration takes under a minute (three attempts at most); a hung one is stopped.
constexpr int kCalibrateOneGpuTimeoutSeconds = 900;

double ceiling(const nlohmann::ordered_json& doc, const char* key) {
  return number_or(doc["ceilings"], key);
}

void print_gpu(const nlohmann::ordered_json& doc) {
  const double theory = ceiling(doc, "theoretical_bw_gbps");
  fmt::print("GPU {}{}\n", doc.value("device", ""),
             doc["sm_clock_mhz"].is_number()
                 ? fmt::format(" (SM clock {:.0f} MHz)", doc["sm_clock_mhz"].get<double>())
                 : "");
  fmt::print("  {:<44} {:>9.0f} GB/s  ({:.0f} % of the theoretical {:.0f} GB/s)\n",
             "copy, cudaMemcpy device to device, 1 GiB", ceiling(doc, "copy_gbps"),
             theory > 0 ? 100 * ceiling(doc, "copy_gbps") / theory : 0.0, theory);
  const std::pair<const char*, const char*> rows[] = {
      {"fp32_fma_gflops", "FP32 FMA peak"},
      {"fp64_fma_gflops", "FP64 FMA peak"},
      {"sgemm_gflops", "cuBLAS SGEMM 8192, pedantic FP32"},
      {"sgemm_tf32_gflops", "cuBLAS SGEMM 8192, TF32 tensor cores"},
      {"dgemm_gflops", "cuBLAS DGEMM 8192"},
  };
  for (const auto& [key, what] : rows)
    fmt::print("  {:<44} {:>9.1f} TFLOP/s\n", what, ceiling(doc, key) / 1e3);
}

void print_cpu(const nlohmann::ordered_json& doc) {
  fmt::print("CPU {} ({} cores)\n  {:>7} {:>10} {:>14} {:>14}\n", doc.value("device", ""),
             doc.value("cores", 0), "threads", "copy GB/s", "SGEMM GFLOP/s", "DGEMM GFLOP/s");
  for (const auto& row : doc["ceilings"])
    fmt::print("  {:>7} {:>10.1f} {:>14.1f} {:>14.1f}\n", row.value("threads", 0),
               row.value("copy_gbps", 0.0), row.value("sgemm_gflops", 0.0),
               row.value("dgemm_gflops", 0.0));
}

// How a judged measurement went, after its figures.
void print_outcome(const CalibrationResult& r) {
  const nlohmann::json verdict = r.doc.value("verdict", nlohmann::json::object());
  const nlohmann::json conditions = r.doc.value("conditions", nlohmann::json::object());
  fmt::print(
      "  {} (the best of {} measurement{}; it took {:.0f} s while other processes used "
      "{:.2f} cores)\n",
      verdict.value("state", "quiet"), verdict.value("attempts", 1),
      verdict.value("attempts", 1) == 1 ? "" : "s", conditions.value("seconds", 0.0),
      conditions.value("other_processes_cores", 0.0));
  if (!r.decision.message.empty()) fmt::print(stderr, "warning: {}\n", r.decision.message);
  if (!r.file.empty()) fmt::print("  -> {}\n", r.file.string());
}

}  // namespace

int calibrate_command(const CalibrateArguments& args) {
  const CalibrationStore store(args.out);
  const std::string host = environment().host;
  bool kept = true, measured = false;
  // Measures, prints and keeps (or not) one device: true when the store took it.
  auto measure_and_print = [&](const CalibrationKey& key, int cores, auto&& print) {
    const CalibrationResult r = calibrate_and_store(store, key, cores, args.force);
    print(r.doc);
    print_outcome(r);
    return r.decision.store;
  };
  auto one = [&](const CalibrationKey& key, int cores, auto&& print) {
    measured = true;
    kept = measure_and_print(key, cores, print) && kept;
  };
  // Every GPU of a node, each by a child that sees it alone (as a run's workers do): a run over
  // several GPUs needs each one's ceilings, keyed by its UUID.
  const GpuInventory gpus = args.cpu_only ? GpuInventory{} : probe_gpus();
  if (gpus.devices.size() > 1) {
    for (const GpuDevice& d : gpus.devices) {
      std::fflush(stdout);
      std::fflush(stderr);
      const ForkedCallResult r = run_forked(
          [&] {
            ::setenv(gpus.visibility_variable.c_str(), d.visibility.c_str(), 1);
            std::string outcome = "absent";
            if (gpu_info().present) {
              outcome =
                  measure_and_print(gpu_calibration_key(host, gpu_info().name, gpu_info().uuid), 0,
                                    print_gpu)
                      ? "kept"
                      : "not kept";
            } else {
              fmt::print(stderr, "error: GPU {} ({}): {}\n", d.index, d.uuid,
                         gpu_info().absent_reason);
            }
            std::fflush(stdout);
            std::fflush(stderr);
            return outcome;
          },
          kCalibrateOneGpuTimeoutSeconds);
      if (!r.finished)
        fmt::print(stderr, "error: the calibration of GPU {} ({}) ended: {}\n", d.index, d.uuid,
                   r.how_it_ended());
      measured = measured || r.text == "kept" || r.text == "not kept";
      kept = kept && r.text == "kept";
    }
  } else if (!args.cpu_only) {
    if (gpu_info().present) {
      one(gpu_calibration_key(host, gpu_info().name, gpu_info().uuid), 0, print_gpu);
    } else if (args.gpu_only) {
      fmt::print(stderr, "error: no GPU to calibrate: {}\n", gpu_info().absent_reason);
      return exit_code::kRefused;
    } else {
      fmt::print("GPU: none ({})\n", gpu_info().absent_reason);
    }
  }
  if (!args.gpu_only) {
    const int cores = environment().cores;
    one(cpu_calibration_key(host, environment().cpu_model, cores), cores, print_cpu);
  }
  // A measurement that was not kept (implausible, or loaded where a quiet one is stored) is a
  // refusal: the store holds what it held before.
  if (!measured) return exit_code::kRefused;
  return kept ? exit_code::kOk : exit_code::kRefused;
}

}  // namespace runner::cli
