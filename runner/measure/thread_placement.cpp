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
  // In brackets, as a JSON list reads: "0,1" is the number 0.1 in a comma-decimal spreadsheet and
  // "0" a number anywhere, so the column would be a number in some rows and text in others.
  std::string text = "[";
  for (std::size_t i = 0; i < cpus.size(); ++i) text += (i ? "," : "") + std::to_string(cpus[i]);
  return text + "]";
}

}  // namespace runner
