// Ceilings: where calibrations are stored, what the CPU calibration writes, and the pct_* columns
// a record gets from a (made-up) calibration.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runner/measure/calibration.hpp"
#include "runner/measure/calibration_cpu.hpp"
#include "runner/measure/calibration_quality.hpp"
#include "runner/measure/calibration_store.hpp"
#include "runner/results/ceilings.hpp"
#include "runner/results/record_files.hpp"
#include "runner/results/stale_ceilings.hpp"
#include "tests/unit/fake_kernels.hpp"
#include "tests/unit/scoped_env.hpp"
#include "tests/unit/temp_dir.hpp"

namespace runner {
namespace {

using testing::ScopedEnv;

TEST(Calibration, EntriesAreKeyedByHostAndDevice) {
  EXPECT_EQ(model_slug("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3");
  EXPECT_EQ(model_slug("Intel(R) Xeon(R) Platinum 8480+ @ 2.0GHz"),
            "intel-r-xeon-r-platinum-8480-2-0ghz");
  EXPECT_EQ(model_slug("  --  "), "unknown");
  const CalibrationKey cpu = cpu_calibration_key("node07", "AMD EPYC 9654 96-Core Processor", 8);
  EXPECT_EQ(cpu.file, "cpu-amd-epyc-9654-96-core-processor-8c.json");
  EXPECT_EQ(cpu.legacy_file, cpu.file);
  // A GPU by its UUID where known: this board, whatever slot or node it moves to.
  const CalibrationKey gpu = gpu_calibration_key("node07", "NVIDIA H100 80GB HBM3",
                                                 "GPU-8f6b3c1e-0a2b-4c5d-9e8f-0123456789ab");
  EXPECT_EQ(gpu.file, "gpu-gpu-8f6b3c1e-0a2b-4c5d-9e8f-0123456789ab.json");
  EXPECT_EQ(gpu.legacy_file, "gpu-nvidia-h100-80gb-hbm3.json");
  EXPECT_EQ(gpu_calibration_key("node07", "AMD MI210", "").file, "gpu-amd-mi210.json");
  const CalibrationStore store("cal");
  EXPECT_EQ(store.file_for(cpu), "cal/node07/cpu-amd-epyc-9654-96-core-processor-8c.json");
}

TEST(Calibration, TheoreticalBandwidthIsClockTimesBusTimesTwo) {
  // H100 SXM: 2619 MHz HBM3 on a 5120-bit bus.
  EXPECT_NEAR(theoretical_bw_gbps(2619, 5120), 3352.32, 1e-9);
}

TEST(Calibration, ThreadCountsArePowersOfTwoAndTheCores) {
  EXPECT_EQ(calibration_thread_counts(1), (std::vector<int>{1}));
  EXPECT_EQ(calibration_thread_counts(2), (std::vector<int>{1, 2}));
  EXPECT_EQ(calibration_thread_counts(6), (std::vector<int>{1, 2, 4, 6}));
  EXPECT_EQ(calibration_thread_counts(8), (std::vector<int>{1, 2, 4, 8}));
}

TEST(Calibration, TheCpuCalibrationWritesAValidDocument) {
  const nlohmann::ordered_json doc = calibrate_cpu(1);
  EXPECT_EQ(doc["kind"], "cpu");
  EXPECT_EQ(doc["cores"], 1);
  for (const char* key : {"device", "measured", "host", "runner_version", "git_revision", "method",
                          "conditions", "last_level_cache_bytes"})
    EXPECT_TRUE(doc.contains(key)) << key;
  // What else ran meanwhile, and the load before and after.
  const auto& conditions = doc["conditions"];
  EXPECT_GE(conditions["other_processes_cores"].get<double>(), 0.0);
  EXPECT_EQ(conditions["load_average_before"].size(), 3u);
  EXPECT_GT(conditions["seconds"].get<double>(), 0.0);
  ASSERT_EQ(doc["ceilings"].size(), 1u);
  const auto& row = doc["ceilings"][0];
  EXPECT_EQ(row["threads"], 1);
  // Plausible for any CPU of this century, one core.
  EXPECT_GT(row["copy_gbps"].get<double>(), 0.5);
  EXPECT_LT(row["copy_gbps"].get<double>(), 1000.0);
  EXPECT_GT(row["sgemm_gflops"].get<double>(), 1.0);
  EXPECT_GT(row["dgemm_gflops"].get<double>(), 0.5);
  EXPECT_GE(row["sgemm_n"].get<int>(), 1024);
  EXPECT_GE(row["dgemm_n"].get<int>(), 1024);
  // The spread of each figure's repetitions: the median's distance from the best.
  for (const char* key : {"copy_spread", "sgemm_spread", "dgemm_spread"}) {
    EXPECT_GE(row[key].get<double>(), 0.0) << key;
    EXPECT_LT(row[key].get<double>(), 10.0) << key;
  }
}

// A calibration is the machine's: a run in any working folder reads what the machine stored in
// the user's cache, a site folder ($RUNNER_CALIBRATION_DIR) comes first, and an explicit folder is
// read alone.
TEST(CalibrationStore, OneCalibrationPerMachineWhateverTheWorkingFolder) {
  const testing::TempDir dir;
  const ScopedEnv cache("XDG_CACHE_HOME", (dir / "cache").string());
  unsetenv("RUNNER_CALIBRATION_DIR");
  const CalibrationKey key = cpu_calibration_key("h1", "Test CPU", 2);
  const CalibrationStore store;
  ASSERT_EQ(store.folders(),
            (std::vector<std::filesystem::path>{dir / "cache/runner/calibration"}));
  const auto file = store.store(key, {{"kind", "cpu"}, {"ceilings", nlohmann::json::array()}});
  EXPECT_EQ(file, dir / "cache/runner/calibration/h1/cpu-test-cpu-2c.json");
  const auto cwd = std::filesystem::current_path();
  for (const auto& folder : {dir / "a", dir / "b/c"}) {
    std::filesystem::create_directories(folder);
    std::filesystem::current_path(folder);
    const auto found = CalibrationStore().find(key);
    ASSERT_TRUE(found) << folder;
    EXPECT_EQ(found->file, file);
  }
  std::filesystem::current_path(cwd);
  // Another host of a shared home has its own entry.
  EXPECT_FALSE(store.find(cpu_calibration_key("h2", "Test CPU", 2)));
}

TEST(CalibrationStore, ASiteFolderIsReadFirstAndWrittenWhenWritable) {
  const testing::TempDir dir;
  const ScopedEnv cache("XDG_CACHE_HOME", (dir / "cache").string());
  const ScopedEnv site("RUNNER_CALIBRATION_DIR", (dir / "site").string());
  const CalibrationKey key = cpu_calibration_key("h1", "Test CPU", 2);
  // A legacy file of an earlier release at the site folder's top is read too.
  testing::write_file(dir / "site/cpu-test-cpu-2c.json", R"({"kind": "cpu", "from": "site"})");
  testing::write_file(dir / "cache/runner/calibration/h1/cpu-test-cpu-2c.json",
                      R"({"kind": "cpu", "from": "user"})");
  const CalibrationStore store;
  EXPECT_EQ(store.find(key)->doc["from"], "site");
  EXPECT_EQ(store.write_folder(), dir / "site");
  if (::geteuid() != 0) {  // root writes anywhere
    std::filesystem::permissions(
        dir / "site", std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    EXPECT_EQ(CalibrationStore().write_folder(), dir / "cache/runner/calibration");
  }
  // An explicit folder alone.
  EXPECT_FALSE(CalibrationStore(dir / "elsewhere").find(key));
}

TEST(Calibration, ARunReadsStoredDocumentsOfTheDevicesItNeeds) {
  const testing::TempDir dir;
  const nlohmann::json env = {{"host", "h1"},
                              {"cpu_model", "Test CPU"},
                              {"cores", 2},
                              {"gpu",
                               {{"present", true},
                                {"name", "Test GPU"},
                                {"uuid", "GPU-0000"},
                                {"memory_clock_mhz", 1000},
                                {"memory_bus_bits", 4096}}}};
  testing::write_file(dir.path() / "h1" / "gpu-gpu-0000.json",
                      R"({"kind": "gpu", "ceilings": {"copy_gbps": 800}})");
  testing::write_file(dir.path() / "h1" / "cpu-test-cpu-2c.json",
                      R"({"kind": "cpu", "ceilings": []})");

  const auto both =
      calibration_for_run(dir.path(), env, {.gpu = true, .cpu = true}, false, dir / "run");
  EXPECT_EQ(both["gpu"]["ceilings"]["copy_gbps"], 800);
  EXPECT_EQ(both["cpu"]["kind"], "cpu");
  EXPECT_DOUBLE_EQ(both["theoretical_bw_gbps"].get<double>(), 1024.0);
  EXPECT_EQ(both["files"]["cpu"], (dir.path() / "h1" / "cpu-test-cpu-2c.json").string());
  // The run keeps copies of what it used, beside its records.
  EXPECT_EQ(read_calibration(dir / "run/calibration/cpu-test-cpu-2c.json")["kind"], "cpu");
  EXPECT_EQ(read_calibration(dir / "run/calibration/gpu-gpu-0000.json")["kind"], "gpu");

  const auto cpu_only = calibration_for_run(dir.path(), env, {.gpu = false, .cpu = true}, false);
  EXPECT_TRUE(cpu_only["gpu"].is_null());
  EXPECT_TRUE(cpu_only["theoretical_bw_gbps"].is_null());
  // Nothing stored for another core count, and nothing measured without `measure`.
  const nlohmann::json four_cores = {{"host", "h1"}, {"cpu_model", "Test CPU"}, {"cores", 4}};
  EXPECT_TRUE(calibration_for_run(dir.path(), four_cores, {.cpu = true}, false)["cpu"].is_null());
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "h1" / "cpu-test-cpu-4c.json"));
}

// Under compute-sanitizer or Nsight Compute the GPU's figures would be wrong and then cached for
// every later run: such a run measures no GPU ceilings and stores nothing for the device.
TEST(Calibration, NoGpuCeilingsAreMeasuredUnderACudaTool) {
  const char* saved_preload = std::getenv("LD_PRELOAD");
  const std::string preload = saved_preload ? saved_preload : "";
  for (const char* v : {"CUDA_INJECTION64_PATH", "NV_SANITIZER_INJECTION_PORT_BASE",
                        "NVTX_INJECTION64_PATH", "LD_PRELOAD"})
    unsetenv(v);
  EXPECT_EQ(attached_cuda_tool(), "");
  setenv("LD_PRELOAD", "/usr/lib/libsomething.so", 1);
  EXPECT_EQ(attached_cuda_tool(), "");
  setenv("LD_PRELOAD", "/opt/cuda/compute-sanitizer/libsanitizer-public.so", 1);
  EXPECT_NE(attached_cuda_tool().find("LD_PRELOAD="), std::string::npos);
  unsetenv("LD_PRELOAD");
  // compute-sanitizer of CUDA 13 (its target's environment)
  setenv("NV_SANITIZER_INJECTION_PORT_BASE", "49152", 1);
  EXPECT_EQ(attached_cuda_tool(), "NV_SANITIZER_INJECTION_PORT_BASE=49152");
  unsetenv("NV_SANITIZER_INJECTION_PORT_BASE");
  // Nsight Compute / Nsight Systems
  setenv("CUDA_INJECTION64_PATH", "/opt/nsight-compute/libInjection.so", 1);
  EXPECT_NE(attached_cuda_tool().find("CUDA_INJECTION64_PATH="), std::string::npos);

  const testing::TempDir dir;
  const nlohmann::json env = {{"host", "h1"},
                              {"cpu_model", "Test CPU"},
                              {"cores", 2},
                              {"gpu", {{"present", true}, {"name", "Test GPU"}}}};
  const auto c = calibration_for_run(dir.path(), env, {.gpu = true, .cpu = false}, true);
  EXPECT_TRUE(c["gpu"].is_null());
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "h1" / "gpu-test-gpu.json"));
  unsetenv("CUDA_INJECTION64_PATH");
  if (!preload.empty()) setenv("LD_PRELOAD", preload.c_str(), 1);
}

TEST(Calibration, NeedsFollowTheBackendsOfThePoints) {
  const Registry& r = testing::fake_registry();
  const Point cpu{.kernel = "gemm", .variant = "omp_serial"};
  const Point gpu{.kernel = "gemm", .variant = "cuda_tiled"};
  const nlohmann::json with_gpu = {{"gpu", {{"present", true}}}};
  const nlohmann::json without = {{"gpu", {{"present", false}}}};
  EXPECT_TRUE(calibration_needs({cpu}, r, with_gpu).cpu);
  EXPECT_FALSE(calibration_needs({cpu}, r, with_gpu).gpu);
  EXPECT_TRUE(calibration_needs({gpu}, r, with_gpu).gpu);
  EXPECT_FALSE(calibration_needs({gpu}, r, without).gpu);  // skipped points need no ceilings
  EXPECT_FALSE(calibration_needs({gpu}, r, without).cpu);
}

// --- the pct_* columns ---

TEST(Ceilings, InterpolatedBetweenThreadCountsAndClampedOutside) {
  const std::vector<std::pair<int, double>> t = {{1, 10.0}, {2, 18.0}, {4, 30.0}};
  EXPECT_DOUBLE_EQ(at_threads(t, 1), 10.0);
  EXPECT_DOUBLE_EQ(at_threads(t, 3), 24.0);
  EXPECT_DOUBLE_EQ(at_threads(t, 4), 30.0);
  EXPECT_DOUBLE_EQ(at_threads(t, 16), 30.0);
  EXPECT_DOUBLE_EQ(at_threads(t, 0.5), 10.0);
  EXPECT_DOUBLE_EQ(at_threads({}, 3), 0.0);
}

const nlohmann::json& fake_calibration() {
  static const nlohmann::json c = nlohmann::json::parse(R"({
    "theoretical_bw_gbps": 3352.32,
    "gpu": {"kind": "gpu", "ceilings": {"copy_gbps": 3000, "fp32_fma_gflops": 60000, "fp64_fma_gflops": 30000,
                                        "sgemm_gflops": 50000, "dgemm_gflops": 60000,
                                        "sgemm_tf32_gflops": 400000, "theoretical_bw_gbps": 3352.32}},
    "cpu": {"kind": "cpu", "ceilings": [
      {"threads": 4, "copy_gbps": 40, "sgemm_gflops": 400, "dgemm_gflops": 200},
      {"threads": 1, "copy_gbps": 10, "sgemm_gflops": 100, "dgemm_gflops": 50},
      {"threads": 2, "copy_gbps": 18, "sgemm_gflops": 190, "dgemm_gflops": 95}]}
  })");
  return c;
}

Record ok_record(const char* backend, const char* variant, const char* dtype, double gbps,
                 double gflops) {
  Record r;
  r["kernel"] = "gemm";
  r["variant"] = variant;
  r["backend"] = backend;
  r["dtype"] = dtype;
  r["threads"] = nullptr;
  r["status"] = "ok";
  r["gbps"] = gbps;
  r["gflops"] = gflops;
  return r;
}

TEST(Ceilings, CudaPointsAgainstCopyFmaPeakAndTheory) {
  const Ceilings c(fake_calibration());
  Record f32 = ok_record("cuda", "cuda_tiled", "float", 1500, 6000);
  c.apply(f32, testing::fake_registry());
  EXPECT_DOUBLE_EQ(f32["pct_peak_bw"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(f32["pct_peak_flops"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(f32["pct_theoretical_bw"].get<double>(), 100.0 * 1500 / 3352.32);

  // FP64: cuBLAS DGEMM on tensor cores (60000) beats the FP64 FMA peak (30000): the ceiling is
  // the higher, so that no double point reads above 100 % for want of the tensor-core figure.
  Record f64 = ok_record("cuda", "cuda_tiled", "double", 300, 6000);
  c.apply(f64, testing::fake_registry());
  EXPECT_DOUBLE_EQ(f64["pct_peak_flops"].get<double>(), 10.0);

  // A TF32 variant is measured against the TF32 tensor-core GEMM, not the FP32 FMA peak.
  Record tf32 = ok_record("cuda", "cuda_tf32", "float", 300, 200000);
  c.apply(tf32, testing::fake_registry());
  EXPECT_DOUBLE_EQ(tf32["pct_peak_flops"].get<double>(), 50.0);
}

TEST(Ceilings, CpuPointsAgainstTheCeilingAtTheirThreadCount) {
  const Ceilings c(fake_calibration());
  Record serial = ok_record("cpu", "omp_serial", "float", 5, 50);  // no threads: one
  c.apply(serial, testing::fake_registry());
  EXPECT_DOUBLE_EQ(serial["pct_peak_bw"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(serial["pct_peak_flops"].get<double>(), 50.0);
  EXPECT_FALSE(serial.contains("pct_theoretical_bw"));

  Record three = ok_record("cpu", "omp_blocked", "double", 29, 29.5);
  three["threads"] = 3;  // between 2 (18 GB/s, 95 GFLOP/s) and 4 (40, 200)
  c.apply(three, testing::fake_registry());
  EXPECT_DOUBLE_EQ(three["pct_peak_bw"].get<double>(), 100.0 * 29 / 29.0);
  EXPECT_DOUBLE_EQ(three["pct_peak_flops"].get<double>(), 100.0 * 29.5 / 147.5);
}

TEST(Ceilings, NothingWithoutAFigureOrACeiling) {
  const Ceilings c(fake_calibration());
  Record transpose = ok_record("cuda", "cuda_tiled", "float", 1500, 0);
  transpose.erase("gflops");
  c.apply(transpose, testing::fake_registry());
  EXPECT_TRUE(transpose.contains("pct_peak_bw"));
  EXPECT_FALSE(transpose.contains("pct_peak_flops"));

  Record failed = ok_record("cuda", "cuda_tiled", "float", 1500, 6000);
  failed["status"] = "failed";
  c.apply(failed, testing::fake_registry());
  EXPECT_FALSE(failed.contains("pct_peak_bw"));

  Record uncalibrated = ok_record("cuda", "cuda_tiled", "float", 1500, 6000);
  Ceilings().apply(uncalibrated, testing::fake_registry());
  EXPECT_FALSE(uncalibrated.contains("pct_peak_bw"));
  EXPECT_FALSE(uncalibrated.contains("pct_theoretical_bw"));
}

// No percentage above 100 stands without its reason (the project's issue 34: 228 % of a ceiling
// measured on a loaded machine, without a word).
TEST(Ceilings, APercentageAbove100SaysWhy) {
  nlohmann::json calibration = fake_calibration();
  Record fast = ok_record("cpu", "openblas", "float", 1, 150);  // 150 % of 100 GFLOP/s
  fast["time_ms_median"] = 10.0;
  Record slow = ok_record("cpu", "openblas", "float", 1, 50);
  slow["time_ms_median"] = 10.0;
  {
    const Ceilings c(calibration);
    c.apply(fast, testing::fake_registry());
    c.apply(slow, testing::fake_registry());
    EXPECT_EQ(fast["ceiling_note"],
              "above the compute ceiling calibrated before: the ceiling is stale, or this problem "
              "suits the hardware better than the calibration's (`runner calibrate --check`)");
    EXPECT_FALSE(slow.contains("ceiling_note"));
  }
  calibration["cpu"]["measured"] = "2026-11-28T11:21:26Z";
  calibration["cpu"]["verdict"] = {{"state", "provisional"},
                                   {"reasons", {"other processes used 1.47 cores' worth of CPU"}}};
  Ceilings(calibration).apply(fast, testing::fake_registry());
  EXPECT_EQ(fast["ceiling_note"],
            "above a compute ceiling measured under load (other processes used 1.47 cores' worth "
            "of CPU): the ceiling is too low; `runner calibrate` on a quiet machine measures it "
            "again");
  calibration["cpu"]["verdict"]["state"] = "quiet";
  calibration["cpu"]["stale"] = {{"reason", "gemm/openblas reached 150 %"}};
  Ceilings(calibration).apply(fast, testing::fake_registry());
  EXPECT_EQ(fast["ceiling_note"],
            "above a stale compute ceiling (gemm/openblas reached 150 %): the next run measures it "
            "again");
  // Bandwidth above the copy through memory, by a problem that fits in the last-level cache.
  calibration["cpu"].erase("stale");
  calibration["cpu"]["last_level_cache_bytes"] = 32 << 20;
  Record cached = ok_record("cpu", "omp_blocked", "float", 20, 0);  // 200 % of 10 GB/s
  cached["time_ms_median"] = 0.05;                                  // 1 MB moved
  Ceilings(calibration).apply(cached, testing::fake_registry());
  EXPECT_EQ(cached["ceiling_note"],
            "its 1.0 MiB fit in the 32.0 MiB last-level cache: faster than the copy through "
            "memory that the bandwidth ceiling measures");
}

// After a run, the store learns what its points reached, and a quiet calibration they beat is
// stale: the next run measures it again.
TEST(Ceilings, PointsAboveAQuietCalibrationMakeItStale) {
  const testing::TempDir dir;
  const auto file = dir / "store/h1/cpu-test-cpu-2c.json";
  nlohmann::json doc = fake_calibration()["cpu"];
  doc["measured"] = "2026-11-28T10:00:00Z";
  doc["verdict"] = {{"state", "quiet"}, {"reasons", nlohmann::json::array()}};
  testing::write_file(file, doc.dump());
  nlohmann::json calibration = {{"cpu", doc}, {"files", {{"cpu", file.string()}}}};
  Record fast = ok_record("cpu", "openblas", "float", 1, 150);
  fast["threads"] = 1;
  fast["point_key"] = "gemm/openblas dtype=float size=512x512x512 threads=1";
  fast["timestamp"] = "2026-11-28T11:00:00Z";
  fast["time_ms_median"] = 10.0;
  Ceilings(calibration).apply(fast, testing::fake_registry());
  note_points_against_ceilings(calibration, {fast});
  const auto stored = read_calibration(file);
  EXPECT_EQ(stored["stale"]["reason"],
            "gemm/openblas dtype=float size=512x512x512 threads=1 reached 150 % of its compute "
            "ceiling on 2026-11-28T11:00:00Z");
  EXPECT_EQ(stored["observed"]["sgemm_gflops"]["1"]["value"], 150.0);
  // A later calibration below that point is measured again, never kept over a quiet one.
  EXPECT_FALSE(judge_cpu_calibration(stored, nullptr, stored["observed"], 0).quiet());
}

}  // namespace
}  // namespace runner
