// The per-problem device arrays of runner/api/cuda/problem_arrays.hpp.
#include "runner/api/cuda/problem_arrays.hpp"

#include <algorithm>
#include <map>

#include "runner/api/cuda/cuda_check.hpp"

namespace runner::cuda {

namespace {

// The arrays of the problem in flight. One problem at a time, like the worker's problem cache:
// a point of another problem frees them first. The problem is watched, not owned: once its last
// user lets go, the arrays are stale and are freed at the next call.
struct ProblemArrays {
  std::weak_ptr<const Problem> problem;
  std::map<int, void*> arrays;  // slot → device memory

  void clear() {
    for (auto& [slot, p] : arrays) (void)cudaFree(p);
    arrays.clear();
    problem.reset();
  }
  ~ProblemArrays() { clear(); }
};

ProblemArrays& problem_arrays() {
  static ProblemArrays arrays;
  return arrays;
}

}  // namespace

const void* problem_array_on_device(const std::shared_ptr<const Problem>& problem, int slot,
                                    std::size_t bytes, const DeviceArrayBuilder& build,
                                    cudaStream_t stream) {
  ProblemArrays& cache = problem_arrays();
  // An expired problem locks to null: a new problem at a freed one's address is not taken for it.
  if (cache.problem.lock() != problem) {
    cache.clear();
    cache.problem = problem;
  }
  if (const auto it = cache.arrays.find(slot); it != cache.arrays.end()) return it->second;
  void* device = nullptr;
  const cudaError_t e = cudaMalloc(&device, std::max<std::size_t>(bytes, 1));
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // not sticky: clear it, and keep to the host path
    return nullptr;
  }
  check(e, "cudaMalloc", __FILE__, __LINE__);
  bool built = false;
  try {
    built = build(device, stream);
  } catch (...) {
    (void)cudaFree(device);
    throw;
  }
  if (!built) {
    (void)cudaGetLastError();
    (void)cudaFree(device);
    return nullptr;
  }
  cache.arrays[slot] = device;
  return device;
}

}  // namespace runner::cuda
