#pragma once
// Test-only workloads that fail on purpose, to prove that one bad point cannot take a run down.
#include <memory>

#include "runner/api/point.hpp"
#include "runner/api/workload.hpp"

namespace runner::kernels::fault {

// Trivial problem: faults need no data.
struct FaultProblem final : Problem {};

std::unique_ptr<Workload> make_host_segfault(const Point&, std::shared_ptr<const Problem>);
std::unique_ptr<Workload> make_host_abort(const Point&, std::shared_ptr<const Problem>);
std::unique_ptr<Workload> make_host_hang(const Point&, std::shared_ptr<const Problem>);
std::unique_ptr<Workload> make_host_ok(const Point&, std::shared_ptr<const Problem>);
// CUDA (fault_cuda.cu): an out-of-bounds write, a device-side trap, a kernel that never ends.
std::unique_ptr<Workload> make_cuda_oob_write(const Point&, std::shared_ptr<const Problem>);
std::unique_ptr<Workload> make_cuda_trap(const Point&, std::shared_ptr<const Problem>);
std::unique_ptr<Workload> make_cuda_endless_loop(const Point&, std::shared_ptr<const Problem>);

}  // namespace runner::kernels::fault
