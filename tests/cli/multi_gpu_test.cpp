// A run over several GPUs (docs/measurement.md, "Several GPUs") through the real binary: the bad
// `--gpus` inputs of the issue, each exit 2 with its reason and nothing written; and, with made-up
// GPUs (bin/runner-test, RUNNER_TEST_FAKE_GPUS: their workers see no GPU and record their points
// skipped), the scheduling itself on a machine without one: every point once, a problem's GPU
// points on one GPU, the GPU columns, `each` mode's copies, a resume on another number of GPUs.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "runner/base/cpu_affinity.hpp"
#include "runner/run/device_slots.hpp"
#include "tests/cli/child_process.hpp"
#include "tests/cli/results_dir.hpp"
#include "tests/unit/temp_dir.hpp"

namespace runner::cli_testing {
namespace {

using runner::testing::TempDir;

constexpr const char* kConfig = R"(experiment: multi
repeat: {warmup: 0, min_samples: 3, max_samples: 3}
baseline: {variant: omp_serial}
sweeps:
  - {kernel: transpose, variant: [omp_serial, omp_naive, copy, smem_pad, tiled_rows], size: [64, 96, 128, 160], threads: [1]}
)";

bool built_with_gpu_variants() {
  for (const auto& line : lines_of(run_runner({"list"}).out))
    if (line.starts_with("transpose ") && line.find(" copy ") != std::string::npos)
      return line.find("built without") == std::string::npos;
  return false;
}

struct FakeGpuRun {
  TempDir dir;
  ProcessResult go(std::vector<std::string> extra, int fake_gpus,
                   const std::string& config = kConfig,
                   const std::map<std::string, std::string>& env = {}) {
    write_text(dir / "multi.yaml", config);
    std::vector<std::string> args = {(dir / "multi.yaml").string(), "--out", (dir / "out").string(),
                                     "-q", "--no-calibrate"};
    args.insert(args.end(), extra.begin(), extra.end());
    SpawnOptions o;
    o.env["RUNNER_FAULT_INJECTION"] = "1";  // the test binary, which knows made-up GPUs
    o.env["RUNNER_TEST_FAKE_GPUS"] = std::to_string(fake_gpus);
    for (const auto& [name, value] : env) o.env[name] = value;
    return run_runner(args, 120, o);
  }
  std::vector<nlohmann::json> records() {
    return read_jsonl_strictly(dir / "out" / "records.jsonl").records;
  }
};

void expect_usage_error(const ProcessResult& r, const std::string& says, const TempDir& dir) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out")) << "nothing written";
}

TEST(MultiGpu, BadGpuSelectionsAreUsageErrors) {
  TempDir dir;
  write_text(dir / "multi.yaml", kConfig);
  const auto run = [&](std::vector<std::string> extra,
                       std::map<std::string, std::string> env = {}) {
    std::vector<std::string> args = {(dir / "multi.yaml").string(), "--out",
                                     (dir / "out").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    SpawnOptions o;
    o.env = env;
    return run_runner(args, 60, o);
  };
  expect_usage_error(run({"--gpus", "0,0"}), "GPU 0 is named twice", dir);
  expect_usage_error(run({"--gpus", "two"}), "neither a GPU index nor a GPU UUID", dir);
  expect_usage_error(run({"--gpu-mode", "every"}), "--gpu-mode", dir);
  expect_usage_error(run({"--gpus", ""}), "no GPUs named", dir);
  expect_usage_error(run({"--gpus", "-1"}), "--gpus -1: '-1' is neither a GPU index", dir);
  // This machine may have GPUs: ask for more than any has.
  expect_usage_error(run({"--gpus", "4000"}), "4000 GPUs asked for, and this process sees", dir);
  expect_usage_error(run({"--gpus", "4000,"}), "there is no GPU 4000", dir);
  expect_usage_error(run({"--gpus", "GPU-00000000-1111-2222-3333-444444444444,"}),
                     "no GPU with UUID GPU-00000000-1111-2222-3333-444444444444 here", dir);
  // CUDA_VISIBLE_DEVICES in a CUDA build, HIP_VISIBLE_DEVICES in a HIP one.
  expect_usage_error(
      run({"--gpus", "1"}, {{"CUDA_VISIBLE_DEVICES", ""}, {"HIP_VISIBLE_DEVICES", ""}}),
      "_VISIBLE_DEVICES is set and empty", dir);
  // The config's keys, located.
  write_text(dir / "multi.yaml", std::string(kConfig) + "gpus: [0, 0]\n");
  expect_usage_error(run({}), "multi.yaml:6:11: gpus[1]: GPU 0 is named twice (also gpus[0])", dir);
  write_text(dir / "multi.yaml", std::string(kConfig) + "gpus: [0, two]\n");
  expect_usage_error(run({}), "multi.yaml:6:11: gpus[1]: 'two' is neither a GPU index", dir);
  // A GPU the node lacks is found once GPUs are probed: the message still says where it was named.
  write_text(dir / "multi.yaml", std::string(kConfig) + "gpus: [4000]\n");
  expect_usage_error(run({}), "multi.yaml:6:7: gpus: [4000]: there is no GPU 4000", dir);
  write_text(dir / "multi.yaml", std::string(kConfig) + "gpus: 4000\n");
  expect_usage_error(run({}), "multi.yaml:6:7: gpus: 4000: 4000 GPUs asked for, and this", dir);
  write_text(dir / "multi.yaml", std::string(kConfig) + "gpu_mode: every\n");
  expect_usage_error(run({}), "multi.yaml:6:11: gpu_mode must be spread or each, got 'every'", dir);
}

TEST(MultiGpu, CalibrateVisitsEveryGpuEachInAChildThatSeesItAlone) {
  // Made-up GPUs: each child, given its GPU's visibility entry, finds no GPU behind it and says so;
  // what matters is that every GPU of the node is visited, not only device 0.
  TempDir dir;
  SpawnOptions o;
  o.env["RUNNER_FAULT_INJECTION"] = "1";
  o.env["RUNNER_TEST_FAKE_GPUS"] = "3";
  const ProcessResult r =
      run_runner({"calibrate", "--gpu-only", "--out", (dir / "cal").string()}, 120, o);
  EXPECT_EQ(r.exit_code, 3) << "nothing measured: " << r.err;
  for (int g = 0; g < 3; ++g)
    EXPECT_NE(r.err.find("error: GPU " + std::to_string(g) + " (GPU-fa4e000" + std::to_string(g)),
              std::string::npos)
        << r.err;
}

TEST(MultiGpu, PointsSpreadOverTheGpusAProblemOnOne) {
  if (!built_with_gpu_variants()) GTEST_SKIP() << "no GPU variants in this build";
  FakeGpuRun t;
  const ProcessResult r = t.go({}, 3);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = t.records();
  ASSERT_EQ(records.size(), 20u) << "every point once";
  std::map<std::string, std::set<int>> gpus_of_problem;
  std::set<int> used;
  std::set<std::string> ids;
  for (const auto& rec : records) {
    ids.insert(rec["point_id"].get<std::string>());
    if (rec["backend"] == "cpu") {
      EXPECT_TRUE(rec["gpu_index"].is_null()) << rec.dump();
      EXPECT_EQ(rec["status"], "ok") << rec.dump();
      continue;
    }
    const int g = rec["gpu_index"].get<int>();
    used.insert(g);
    gpus_of_problem[std::to_string(rec["m"].get<int>())].insert(g);
    EXPECT_EQ(rec["gpu_uuid"], "GPU-fa4e000" + std::to_string(g) + "-0000-0000-0000-000000000000");
    EXPECT_FALSE(rec["gpu_bus_id"].get<std::string>().empty());
    // Made-up GPUs have no cores near them: each worker gets every core the run was given, not
    // the one core libgomp binds the runner's main thread to under the OMP_PROC_BIND it sets
    // (which put every GPU worker of a node on core 0).
    EXPECT_EQ(rec["worker_cpus"], cpu_list_text(cpus_at_start())) << rec.dump();
    EXPECT_EQ(rec["status"], "skipped") << "made-up GPUs: the worker sees none";
  }
  EXPECT_EQ(ids.size(), 20u);
  EXPECT_GT(used.size(), 1u) << "more than one GPU got work";
  for (const auto& [problem, gpus] : gpus_of_problem)
    EXPECT_EQ(gpus.size(), 1u) << "problem " << problem << " ran on one GPU";
  const nlohmann::json manifest = read_json(t.dir / "out" / "manifest.json");
  ASSERT_EQ(manifest["environment"]["gpus"].size(), 3u) << manifest["environment"].dump();
  EXPECT_NE(manifest["environment"]["gpu_selection"].get<std::string>().find("3 of 3 GPUs"),
            std::string::npos);
  // Whether the clocks are read is each GPU worker's answer (the runner's own process opens no
  // GPU): made-up GPUs have no monitor, and the reason is their worker's.
  for (const auto& g : manifest["environment"]["gpus"]) {
    ASSERT_TRUE(g.contains("clock_monitor")) << g.dump();
    EXPECT_NE(g["clock_monitor"], "nvml") << g.dump();
    EXPECT_FALSE(g["clock_monitor"].get<std::string>().empty()) << g.dump();
  }
  EXPECT_EQ(manifest["environment"]["gpu_clock_monitor"],
            manifest["environment"]["gpus"][0]["clock_monitor"]);
}

// A listing of the GPUs by NVML stands for the runtime's only until the workers' hellos confirm
// it (runner/measure/gpu_devices.hpp, GpuListing): where a worker sees another GPU, or none (here
// every made-up GPU's worker), the run starts again on the runtime's listing, in the same folder,
// before any record, and says so; every point is then recorded once and the manifest says which
// listing the run used.
TEST(MultiGpu, AGpuListingTheWorkersContradictIsListedAgainByTheRuntime) {
  if (!built_with_gpu_variants()) GTEST_SKIP() << "no GPU variants in this build";
  TempDir dir;
  write_text(dir / "multi.yaml", kConfig);
  SpawnOptions o;
  o.cwd = dir.path();
  o.env["RUNNER_FAULT_INJECTION"] = "1";
  o.env["RUNNER_TEST_FAKE_GPUS"] = "2";
  o.env["RUNNER_TEST_FAKE_GPUS_PREDICTED"] = "1";
  // No --out: the folder the run makes for itself is made once.
  const ProcessResult r = run_runner({"multi.yaml", "--no-calibrate"}, 120, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // (CUDA_VISIBLE_DEVICES, or HIP_VISIBLE_DEVICES in a HIP build.)
  EXPECT_NE(r.err.find("_VISIBLE_DEVICES=fake-0) sees no GPU, where NVML's listing put "
                       "GPU-fa4e0000"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("the worker of GPU 0 ("), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the GPUs are listed again by the GPU runtime"), std::string::npos) << r.err;
  std::vector<std::filesystem::path> runs;
  for (const auto& e : std::filesystem::directory_iterator(dir / "results" / "multi"))
    runs.push_back(e.path());
  ASSERT_EQ(runs.size(), 1u) << "one results folder";
  const auto records = read_jsonl_strictly(runs[0] / "records.jsonl").records;
  ASSERT_EQ(records.size(), 20u) << "every point once";
  std::set<std::string> ids;
  for (const auto& rec : records) ids.insert(rec["point_id"].get<std::string>());
  EXPECT_EQ(ids.size(), 20u);
  const nlohmann::json manifest = read_json(runs[0] / "manifest.json");
  EXPECT_EQ(manifest["environment"]["gpu_listing"], "runtime") << manifest["environment"].dump();
  EXPECT_EQ(manifest["environment"]["gpus"].size(), 2u);
}

TEST(MultiGpu, ACountUsesTheFirstGpusAndEachModeRunsEveryGpuPointOnEach) {
  if (!built_with_gpu_variants()) GTEST_SKIP() << "no GPU variants in this build";
  FakeGpuRun two;
  ASSERT_EQ(two.go({"--gpus", "2"}, 4).exit_code, 0);
  for (const auto& rec : two.records())
    if (rec["backend"] != "cpu") {
      EXPECT_LT(rec["gpu_index"].get<int>(), 2) << rec.dump();
    }

  FakeGpuRun each;
  const ProcessResult r = each.go({"--gpu-mode", "each"}, 3);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = each.records();
  ASSERT_EQ(records.size(), 8u + 12u * 3u) << "CPU points once, GPU points once per GPU";
  std::map<std::string, std::set<int>> gpus_of_key;
  std::set<std::string> ids;
  for (const auto& rec : records) {
    ids.insert(rec["point_id"].get<std::string>());
    if (rec["backend"] == "cpu") continue;
    std::string key = rec["point_key"].get<std::string>();
    const int g = rec["gpu_index"].get<int>();
    EXPECT_NE(key.find(" gpu=" + std::to_string(g)), std::string::npos) << key;
    gpus_of_key[key.substr(0, key.find(" gpu="))].insert(g);
  }
  EXPECT_EQ(ids.size(), records.size()) << "each copy is its own point";
  for (const auto& [key, gpus] : gpus_of_key) EXPECT_EQ(gpus, (std::set<int>{0, 1, 2})) << key;
}

TEST(MultiGpu, AGpuWhoseWorkerCannotStartIsTakenOutAndTheRunSaysSo) {
  if (!built_with_gpu_variants()) GTEST_SKIP() << "no GPU variants in this build";
  const std::map<std::string, std::string> gpu1_fails = {{"RUNNER_TEST_FAILING_FAKE_GPU", "1"}};
  FakeGpuRun t;
  const ProcessResult r = t.go({}, 3, kConfig, gpu1_fails);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = t.records();
  ASSERT_EQ(records.size(), 20u) << "nothing lost";
  std::set<std::string> ids;
  std::set<int> used;
  for (const auto& rec : records) {
    ids.insert(rec["point_id"].get<std::string>());
    if (rec["backend"] != "cpu") used.insert(rec["gpu_index"].get<int>());
  }
  EXPECT_EQ(ids.size(), 20u);
  EXPECT_EQ(used, (std::set<int>{0, 2})) << "GPU 1's points ran on the others";
  const std::string gone =
      "GPU 1 (GPU-fa4e0001-0000-0000-0000-000000000000): its worker died 3 times in a row while "
      "starting";
  EXPECT_NE(r.err.find("GPU 1 is taken out of the run"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("Taken out of the run: " + gone + "\nIts points ran on the other 2 GPU(s)"),
            std::string::npos)
      << r.out;
  const nlohmann::json manifest = read_json(t.dir / "out" / "manifest.json");
  EXPECT_EQ(manifest["gpus_taken_out"], nlohmann::json::array({gone})) << manifest.dump();
  EXPECT_EQ(manifest["state"], "complete");

  // `each` mode: the copies pinned to the GPU taken out cannot move; they are recorded skipped,
  // with the reason, and the run says so.
  FakeGpuRun each;
  const ProcessResult e = each.go({"--gpu-mode", "each"}, 3, kConfig, gpu1_fails);
  ASSERT_EQ(e.exit_code, 0) << e.err;
  const auto copies = each.records();
  ASSERT_EQ(copies.size(), 8u + 12u * 3u) << "nothing lost";
  int pinned_to_gpu1 = 0;
  for (const auto& rec : copies) {
    const std::string key = rec["point_key"].get<std::string>();
    if (key.find(" gpu=1") == std::string::npos) continue;
    ++pinned_to_gpu1;
    EXPECT_EQ(rec["status"], "skipped") << rec.dump();
    EXPECT_NE(rec["message"].get<std::string>().find("GPU 1 was taken out"), std::string::npos)
        << rec.dump();
  }
  EXPECT_EQ(pinned_to_gpu1, 12);
  EXPECT_NE(e.out.find("The copies of points pinned to it are recorded skipped; the other 2 GPU(s) "
                       "ran theirs"),
            std::string::npos)
      << e.out;
}

TEST(MultiGpu, ARunBegunOnThreeGpusResumesOnOne) {
  if (!built_with_gpu_variants()) GTEST_SKIP() << "no GPU variants in this build";
  FakeGpuRun t;
  ASSERT_EQ(t.go({}, 3).exit_code, 0);
  // The made-up GPUs' points were skipped: a resume runs them again, here on one GPU.
  const ProcessResult r = t.go({"--resume", "--gpus", "1"}, 3);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = t.records();
  ASSERT_EQ(records.size(), 20u);
  for (const auto& rec : records)
    if (rec["backend"] != "cpu") {
      EXPECT_EQ(rec["gpu_index"], 0) << rec.dump();
    }
}

}  // namespace
}  // namespace runner::cli_testing
