#include "runner/measure/thread_placement.hpp"

#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <vector>

namespace runner {

std::string omp_thread_cpus(int threads) {
  std::vector<int> cpus(static_cast<std::size_t>(std::max(threads, 1)), -1);
#pragma omp parallel num_threads(threads)
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    if (t < cpus.size()) cpus[t] = sched_getcpu();
  }
  std::string text;
  for (std::size_t i = 0; i < cpus.size(); ++i) text += (i ? "," : "") + std::to_string(cpus[i]);
  return text;
}

}  // namespace runner
