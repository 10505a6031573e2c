// The `fault` kernel: variants that crash, abort, hang or fault the GPU on purpose. Registered only
// when RUNNER_FAULT_INJECTION=1 is set (tests set it), so a normal run can never select them.
#include <cstdlib>
#include <cstring>

#include "runner/api/registry.hpp"
#include "tests/test_kernels/fault_workloads.hpp"

namespace runner::kernels::fault {

namespace {

KernelInfo make_fault_kernel() {
  KernelInfo k;
  k.name = "fault";
  k.description = "test-only fault injection (RUNNER_FAULT_INJECTION=1)";
  k.axes = {};
  k.make_problem = [](const Point&, std::uint64_t) { return std::make_shared<FaultProblem>(); };
  k.variants = {
      {.name = "host_ok",
       .backend = Backend::cpu,
       .description = "does nothing, verifies",
       .factory = make_host_ok},
      {.name = "host_segfault",
       .backend = Backend::cpu,
       .description = "null-pointer write",
       .factory = make_host_segfault},
      {.name = "host_abort",
       .backend = Backend::cpu,
       .description = "std::abort()",
       .factory = make_host_abort},
      {.name = "host_hang",
       .backend = Backend::cpu,
       .description = "never returns",
       .factory = make_host_hang},
      {.name = "cuda_oob_write",
       .backend = Backend::cuda,
       .description = "out-of-bounds device write",
       .factory = RUNNER_CUDA_FACTORY(make_cuda_oob_write)},
      {.name = "cuda_trap",
       .backend = Backend::cuda,
       .description = "device-side trap",
       .factory = RUNNER_CUDA_FACTORY(make_cuda_trap)},
      {.name = "cuda_endless_loop",
       .backend = Backend::cuda,
       .description = "kernel that never ends",
       .factory = RUNNER_CUDA_FACTORY(make_cuda_endless_loop)},
  };
  return k;
}

struct ConditionalRegistration {
  ConditionalRegistration() {
    const char* enabled = std::getenv("RUNNER_FAULT_INJECTION");
    if (enabled && std::strcmp(enabled, "1") == 0) Registry::instance().add(make_fault_kernel());
  }
};
const ConditionalRegistration registration;

}  // namespace

}  // namespace runner::kernels::fault
