#include <unistd.h>

#include <cstdlib>

#include "tests/test_kernels/fault_workloads.hpp"

namespace runner::kernels::fault {

namespace {

// Fails in run() the way `Fault` says; verify() passes so that only the fault decides the outcome.
template <typename Fault>
class HostFault final : public Workload {
 public:
  void poison_output() override {}
  void run() override { Fault{}(); }
  Verification verify() override { return {.passed = true}; }
};

struct Segfault {
  void operator()() const {
    volatile int* null = nullptr;
    *null = 1;
  }
};
struct Abort {
  void operator()() const { std::abort(); }
};
struct Hang {
  void operator()() const {
    while (true) ::pause();
  }
};
struct Nothing {
  void operator()() const {}
};

}  // namespace

std::unique_ptr<Workload> make_host_segfault(const Point&, std::shared_ptr<const Problem>) {
  return std::make_unique<HostFault<Segfault>>();
}
std::unique_ptr<Workload> make_host_abort(const Point&, std::shared_ptr<const Problem>) {
  return std::make_unique<HostFault<Abort>>();
}
std::unique_ptr<Workload> make_host_hang(const Point&, std::shared_ptr<const Problem>) {
  return std::make_unique<HostFault<Hang>>();
}
std::unique_ptr<Workload> make_host_ok(const Point&, std::shared_ptr<const Problem>) {
  return std::make_unique<HostFault<Nothing>>();
}

}  // namespace runner::kernels::fault
