// Plugins on a real GPU (docs/own-kernel.md): the tutorial's CUDA plugin (examples/own-kernel/
// my_tile.cu), compiled by the runner, runs verified beside the built-in smem_pad, tiled_vec and
// copy, with % of copy; a fast wrong plugin is recorded failed by verification; a plugin that
// writes out of bounds is recorded failed with the CUDA error, and the points after it run.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "runner/api/gpu_info.hpp"

namespace {

namespace fs = std::filesystem;

TEST(GpuPlugins, TheTutorialsPluginVerifiesAndWrongOnesFail) {
  if (!runner::gpu_info().present) GTEST_SKIP() << "no GPU: " << runner::gpu_info().absent_reason;
  const fs::path dir = fs::temp_directory_path() / ("gpu-plugins-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path source = RUNNER_SOURCE_DIR;
  // The faulty plugins: the tutorial's, each with one bug (tests/gpu/plugins/make_faulty.sh).
  const std::string make =
      (source / "tests/gpu/plugins/make_faulty.sh").string() + " " + (dir / "faulty").string();
  ASSERT_EQ(std::system(make.c_str()), 0) << make;
  std::ofstream(dir / "plugins.yaml")
      << "experiment: gpu-plugins\nkernel: transpose\ntimeout_s: 30\nplugins: ["
      << (source / "examples/own-kernel/my_tile.cu").string() << ", "
      << (dir / "faulty/wrong_tile.cu").string() << ", " << (dir / "faulty/oob_tile.cu").string()
      << "]\n"
      << "repeat: {warmup: 1, min_samples: 5, max_samples: 20}\n"
         "sweeps:\n"
         "  - {variant: [copy, smem_pad, my_tile, wrong_tile, oob_tile, tiled_vec], size: [1000, "
         "4097], dtype: [float, double], block: [[32, 8]]}\n";
  const std::string cmd = std::string(RUNNER_BIN) + " " + (dir / "plugins.yaml").string() +
                          " --out " + (dir / "out").string() + " -q > " + (dir / "log").string() +
                          " 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1) << "exit 1: the wrong plugins' points failed";
  std::map<std::string, std::vector<nlohmann::json>> by_variant;
  std::ifstream in(dir / "out" / "records.jsonl");
  for (std::string line; std::getline(in, line);) {
    auto r = nlohmann::json::parse(line);
    by_variant[r["variant"].get<std::string>()].push_back(r);
  }
  for (const char* ok : {"copy", "smem_pad", "my_tile", "tiled_vec"}) {
    ASSERT_EQ(by_variant[ok].size(), 4u) << ok;
    for (const auto& r : by_variant[ok]) {
      EXPECT_EQ(r["status"], "ok") << r.dump();
      EXPECT_EQ(r["verified"], true) << r.dump();
      EXPECT_EQ(r["reference"], "gpu-exact") << r.dump();
      EXPECT_GT(r["pct_of_copy"].get<double>(), 10) << r.dump();
    }
  }
  for (const auto& r : by_variant["my_tile"])
    EXPECT_TRUE(r["plugin"].get<std::string>().starts_with("my_tile.cu@")) << r.dump();
  for (const auto& r : by_variant["wrong_tile"]) {
    EXPECT_EQ(r["status"], "failed") << r.dump();
    EXPECT_NE(r["message"].get<std::string>().find("verification failed"), std::string::npos)
        << r.dump();
  }
  for (const auto& r : by_variant["oob_tile"]) {
    EXPECT_EQ(r["status"], "failed") << r.dump();
    EXPECT_NE(r["message"].get<std::string>().find("CUDA error"), std::string::npos) << r.dump();
  }
}

}  // namespace
