#include "runner/cli/process_setup.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>

#include <spdlog/spdlog.h>

#include "runner/base/cpu_affinity.hpp"
#include "runner/base/host_memory.hpp"
#include "runner/base/task_limit.hpp"

namespace runner::cli {

namespace {

// The same bound as a config's `threads` axis.
constexpr long kMaxThreads = 4096;

int cores_of_this_process() {
  return usable_cpus();
}

// OMP_NUM_THREADS is a comma-separated list of positive counts (one per nesting level).
bool sane_thread_list(const std::string& text) {
  if (text.empty()) return false;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto first = item.find_first_not_of(' '), last = item.find_last_not_of(' ');
    if (first == std::string::npos) return false;
    item = item.substr(first, last - first + 1);
    if (item.empty() || item.size() > 6 ||
        item.find_first_not_of("0123456789") != std::string::npos)
      return false;
    const long n = std::stol(item);
    if (n < 1 || n > kMaxThreads) return false;
  }
  return true;
}

// Once per marker: the second start must not start a third, whatever it finds.
void start_again_once(const char* marker, char** argv) {
  if (std::getenv(marker)) return;
  setenv(marker, "1", 1);
  execv("/proc/self/exe", argv);  // returns only on failure: then go on as we are
}

}  // namespace

void prepare_process_environment(char** argv) {
  bool changed = false;
  auto set = [&](const char* name, const std::string& value) {
    setenv(name, value.c_str(), 1);
    changed = true;
  };
  const int cores = cores_of_this_process();

  if (const char* omp = std::getenv("OMP_NUM_THREADS"); omp && !sane_thread_list(omp)) {
    spdlog::warn(
        "OMP_NUM_THREADS={} is not a thread count from 1 to {}: using {} (the cores of "
        "this process) instead",
        omp, kMaxThreads, cores);
    set("OMP_NUM_THREADS", std::to_string(cores));
  }

  if (!std::getenv("OMP_PROC_BIND") && !std::getenv("RUNNER_NO_PIN")) {
    set("OMP_PROC_BIND", "close");
    if (!std::getenv("OMP_PLACES")) set("OMP_PLACES", "cores");
  }
  if (changed) start_again_once("RUNNER_ENVIRONMENT_PREPARED", argv);
}

void fit_openblas_to_address_space(char** argv) {
  if (const auto fitted = openblas_fitted_to_task_limit()) spdlog::warn("{}", *fitted);
  if (!address_space_headroom()) return;
  const char* given = std::getenv("OPENBLAS_NUM_THREADS");
  const long wanted = given && sane_thread_list(given) ? std::stol(given) : cores_of_this_process();
  const int fit = openblas_threads_that_fit(static_cast<int>(wanted));
  if (std::max(fit, 1) >= wanted) return;
  spdlog::warn(
      "ulimit -v leaves room for the buffers of {} OpenBLAS thread{} (of {}): "
      "OPENBLAS_NUM_THREADS={}{}",
      fit, fit == 1 ? "" : "s", wanted, std::max(fit, 1),
      fit < 1 ? "; points that call BLAS will be skipped as out of memory" : "");
  setenv("OPENBLAS_NUM_THREADS", std::to_string(std::max(fit, 1)).c_str(), 1);
  start_again_once("RUNNER_OPENBLAS_FITTED", argv);
}

}  // namespace runner::cli
