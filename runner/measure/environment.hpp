#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace runner {

// Where and how a run happened: host, CPU, OpenMP placement, GPU, compilers, git revision and the
// Slurm job, read once per process. Reading it never touches CUDA (see to_json()).
struct Environment {
  std::string host;
  std::string cpu_model;
  int cores = 0;  // CPUs this process may run on (affinity mask), not the machine's total
  std::string omp_proc_bind, omp_places;
  std::string slurm_job_id, slurm_array_job_id, slurm_array_task_id, slurm_node;

  // Includes the GPU (gpu_info()), which initialises CUDA: call it in worker processes only.
  nlohmann::json to_json() const;
};

const Environment& environment();

// UTC time as ISO 8601 ("2026-11-21T20:39:17Z"); `compact` gives "20261121T203917Z" for names.
std::string utc_now(bool compact = false);

}  // namespace runner
