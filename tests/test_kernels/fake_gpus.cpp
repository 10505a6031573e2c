// RUNNER_TEST_FAKE_GPUS=N: bin/runner-test sees N made-up GPUs (runner/measure/gpu_devices.hpp
// use_fake_gpus_for_tests), so that tests/cli/multi_gpu_test.cpp runs the scheduling of a run over
// several GPUs on a machine without one. Their workers see no GPU: their points are skipped, with
// every GPU column filled. RUNNER_TEST_FAILING_FAKE_GPU=I: the worker of made-up GPU I dies before
// its hello, every time (a GPU taken out of the run). RUNNER_TEST_FAKE_GPUS_PREDICTED=1: their
// listing stands for NVML's, which the workers' hellos then contradict (the run lists again).
#include <cstdlib>
#include <string>

#include "runner/measure/gpu_devices.hpp"

namespace {

struct FakeGpus {
  FakeGpus() {
    if (const char* n = std::getenv("RUNNER_TEST_FAKE_GPUS"); n && *n)
      runner::use_fake_gpus_for_tests(std::atoi(n));
    if (const char* p = std::getenv("RUNNER_TEST_FAKE_GPUS_PREDICTED"); p && *p == '1')
      runner::predict_fake_gpus_for_tests();
    if (const char* i = std::getenv("RUNNER_TEST_FAILING_FAKE_GPU"); i && *i)
      runner::fail_fake_gpu_for_tests(std::atoi(i));
  }
};
const FakeGpus fake_gpus;

}  // namespace
