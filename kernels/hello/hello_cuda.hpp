#pragma once
// The CUDA hello world of the seed lab (hello.cu): `grid` blocks of block.x × block.y threads,
// each recording (block, thread x, thread y), and with `print: true` printing
// "Hello World from Thread (x, y) in Block b!" after the host's "Hello World from the host!".
// A plain C++ header, so that hello_registration.cpp compiles in CPU-only builds too.
#include <memory>

#include "runner/api/point.hpp"
#include "runner/api/workload.hpp"

namespace runner::kernels::hello {

std::unique_ptr<Workload> make_hello(const Point&, std::shared_ptr<const Problem>);

}  // namespace runner::kernels::hello
