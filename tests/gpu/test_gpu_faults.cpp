// GPU faults cannot take a run down: an out-of-bounds write and a device-side trap (sticky errors
// that leave the CUDA context unusable) and an endless kernel are each recorded as failed with
// their cause, and the points after them run in a fresh worker and verify.
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

TEST(GpuFaults, EachFaultFailsOnePointAndTheRunGoesOn) {
  if (!runner::gpu_info().present) GTEST_SKIP() << "no GPU: " << runner::gpu_info().absent_reason;
  const fs::path dir = fs::temp_directory_path() / ("gpu-faults-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "faults.yaml") << R"(experiment: faults
timeout_s: 10
repeat: {warmup: 1, min_samples: 3, max_samples: 3}
sweeps:
  - {kernel: fault, variant: [cuda_oob_write, cuda_trap, cuda_endless_loop, host_segfault]}
  - {kernel: transpose, variant: copy, size: 1000, dtype: float}
  - {kernel: gemm, variant: naive_2d, size: 129, block: [[16, 16]]}
)";
  const std::string cmd = std::string("RUNNER_FAULT_INJECTION=1 ") + RUNNER_TEST_BIN + " " +
                          (dir / "faults.yaml").string() + " --out " + (dir / "out").string() +
                          " -q > " + (dir / "log").string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1) << "exit code 1: some points failed";

  std::map<std::string, nlohmann::json> by_variant;
  std::ifstream in(dir / "out" / "records.jsonl");
  for (std::string line; std::getline(in, line);) {
    auto r = nlohmann::json::parse(line);
    by_variant[r["variant"].get<std::string>()] = r;
  }
  ASSERT_EQ(by_variant.size(), 6u);
  EXPECT_EQ(by_variant["cuda_oob_write"]["status"], "failed");
  EXPECT_NE(
      by_variant["cuda_oob_write"]["message"].get<std::string>().find("cudaErrorIllegalAddress"),
      std::string::npos)
      << by_variant["cuda_oob_write"]["message"];
  EXPECT_EQ(by_variant["cuda_trap"]["status"], "failed");
  EXPECT_NE(by_variant["cuda_trap"]["message"].get<std::string>().find("CUDA error"),
            std::string::npos)
      << by_variant["cuda_trap"]["message"];
  EXPECT_EQ(by_variant["cuda_endless_loop"]["status"], "failed");
  EXPECT_NE(
      by_variant["cuda_endless_loop"]["message"].get<std::string>().find("timed out after 10 s"),
      std::string::npos)
      << by_variant["cuda_endless_loop"]["message"];
  EXPECT_EQ(by_variant["host_segfault"]["status"], "failed");
  EXPECT_NE(by_variant["host_segfault"]["message"].get<std::string>().find("SIGSEGV"),
            std::string::npos);
  for (const char* ok : {"copy", "naive_2d"}) {
    EXPECT_EQ(by_variant[ok]["status"], "ok") << ok << ": " << by_variant[ok]["message"];
    EXPECT_EQ(by_variant[ok]["verified"], true) << ok;
  }
  fs::remove_all(dir);
}

}  // namespace
