#include "runner/measure/environment.hpp"

#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>

#include <fmt/format.h>

#include "runner/api/gpu_info.hpp"
#include "runner/base/build_info.hpp"
#include "runner/base/install_layout.hpp"
#include "runner/measure/device_monitor.hpp"
#include "runner/measure/host_facts.hpp"

namespace runner {

namespace {
std::string env_or(const char* name, const char* fallback = "") {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

std::string read_cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown";
}
}  // namespace

const Environment& environment() {
  static const Environment env = [] {
    Environment e;
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    e.host = host;
    e.cpu_model = read_cpu_model();
    // With OMP_PROC_BIND set, OpenMP binds this thread to its first place before main(), so the
    // affinity mask then shows one core: count the places instead (OMP_PLACES=cores: the cores this
    // process was given, e.g. by Slurm's cpuset).
    cpu_set_t set;
    CPU_ZERO(&set);
    e.cores = sched_getaffinity(0, sizeof set, &set) == 0
                  ? CPU_COUNT(&set)
                  : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    if (omp_get_proc_bind() != omp_proc_bind_false && omp_get_num_places() > e.cores)
      e.cores = omp_get_num_places();
    e.omp_proc_bind = env_or("OMP_PROC_BIND");
    e.omp_places = env_or("OMP_PLACES");
    e.slurm_job_id = env_or("SLURM_JOB_ID");
    e.slurm_array_job_id = env_or("SLURM_ARRAY_JOB_ID");
    e.slurm_array_task_id = env_or("SLURM_ARRAY_TASK_ID");
    e.slurm_node = env_or("SLURMD_NODENAME");
    return e;
  }();
  return env;
}

nlohmann::json Environment::to_json() const {
  nlohmann::json j = {
      {"host", host},
      {"cpu_model", cpu_model},
      {"cores", cores},
      {"omp_proc_bind", omp_proc_bind},
      {"omp_places", omp_places},
      {"gpu", gpu_info().to_json()},
      {"gpu_clock_monitor", gpu_monitor() ? "nvml" : gpu_monitor_unavailable_reason()},
      {"runner_version", build_info::kVersion},
      {"git_revision", build_info::kGitRevision},
      {"runner_prefix", install::describe_prefix()},
      {"runner_binary", install::executable().string()},
      {"cxx_compiler", build_info::kCxxCompiler},
      {"cuda_compiler", build_info::kCudaCompiler},
      {"cuda_architectures", build_info::kCudaArchitectures},
      {"build_type", build_info::kBuildType},
      {"slurm_job_id", slurm_job_id},
      {"slurm_array_job_id", slurm_array_job_id},
      {"slurm_array_task_id", slurm_array_task_id},
      {"slurm_node", slurm_node}};
  // The load, frequency governor and turbo, caches and BLAS: what makes a CPU figure noisy.
  const nlohmann::ordered_json facts = host_facts();  // named: items() refers into it
  for (const auto& item : facts.items()) j[item.key()] = item.value();
  if (*build_info::kHipCompiler) {  // HIP builds only: CUDA manifests keep their keys
    j["hip_compiler"] = build_info::kHipCompiler;
    j["hip_architectures"] = build_info::kHipArchitectures;
  }
  return j;
}

std::string utc_now(bool compact) {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace runner
