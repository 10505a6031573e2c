// `runner calibrate`: measures the ceilings of this machine's GPU and CPU and stores them where
// runs look for them (runner/measure/calibration.hpp).
#include <fmt/format.h>

#include "runner/api/gpu_info.hpp"
#include "runner/cli/commands.hpp"
#include "runner/measure/calibration.hpp"
#include "runner/measure/environment.hpp"
#include "runner/results/record.hpp"
#include "runner/results/record_files.hpp"

namespace runner::cli {

namespace {

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

}  // namespace

int calibrate_command(const CalibrateArguments& args) {
  const std::filesystem::path dir =
      args.out.empty() ? default_calibration_dir() : std::filesystem::path(args.out);
  std::filesystem::create_directories(dir);
  bool wrote = false;
  if (!args.cpu_only) {
    if (gpu_info().present) {
      const auto doc = calibrate_gpu();
      const auto file = gpu_calibration_path(dir, gpu_info().name);
      write_file_atomically(file, doc.dump(2) + "\n");
      print_gpu(doc);
      fmt::print("  -> {}\n", file.string());
      wrote = true;
    } else if (args.gpu_only) {
      fmt::print(stderr, "error: no GPU to calibrate: {}\n", gpu_info().absent_reason);
      return 1;
    } else {
      fmt::print("GPU: none ({})\n", gpu_info().absent_reason);
    }
  }
  if (!args.gpu_only) {
    const int cores = environment().cores;
    const auto doc = calibrate_cpu(cores);
    const auto file = cpu_calibration_path(dir, environment().cpu_model, cores);
    write_file_atomically(file, doc.dump(2) + "\n");
    print_cpu(doc);
    fmt::print("  -> {}\n", file.string());
    wrote = true;
  }
  return wrote ? 0 : 1;
}

}  // namespace runner::cli
