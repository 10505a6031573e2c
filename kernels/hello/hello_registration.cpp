// The hello kernel: the seed's first CUDA exercise and a smoke test of a GPU node in Slurm jobs.
// Its one variant's code is in hello_hello.cu, which defines the factory the line below names.
#include "kernels/hello/hello_problem.hpp"
#include "runner/api/registry.hpp"

namespace runner::kernels::hello {

namespace {

KernelInfo make_hello_kernel() {
  KernelInfo k;
  k.name = "hello";
  k.description =
      "every thread of a grid of blocks records (and may print) its block and thread ids";
  k.axes = {Axis::grid, Axis::block, Axis::print};
  k.flops = [](const Point&) { return 0.0; };
  k.bytes = [](const Point&) { return 0.0; };
  k.reduction_length = [](const Point&) -> std::int64_t { return 0; };
  k.make_problem = make_problem;
  return k;
}

}  // namespace

RUNNER_REGISTER_KERNEL(make_hello_kernel);

// clang-format off
RUNNER_CUDA_VARIANT(hello, hello, {.description = "grid blocks of block.x x block.y threads (grid 0 means 1)"});
// clang-format on

}  // namespace runner::kernels::hello
