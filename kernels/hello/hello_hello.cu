// hello hello: the CUDA hello world of the seed lab, `grid` blocks of block.x × block.y threads,
// each recording (block, thread x, thread y), and with `print: true` printing "Hello World from
// Thread (x, y) in Block b!" after the host's "Hello World from the host!".
//
// Each thread appends the triple (block, thread x, thread y) to a device list through an atomic
// counter; verification then checks that the list holds every triple of the launch exactly once,
// which proves each thread ran once whatever order the blocks ran in (a slot per thread could not
// tell a thread that ran twice). With `print`, each thread also printf's its ids, as in the seed
// lab.
#include "runner/api/gpu/runtime.hpp"

#include <climits>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "runner/api/cuda/cuda_workload.hpp"
#include "runner/api/cuda/device_buffer.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::hello {

namespace {

struct ThreadRecord {
  unsigned block, x, y;
};

// The counter is never reset between launches (warm-up runs are not preceded by poison_output):
// launch L appends at positions [L·capacity, (L+1)·capacity), which modulo capacity is the list.
__global__ void hello_kernel(ThreadRecord* records, unsigned long long* appended,
                             unsigned long long capacity, bool print) {
  if (print)
    printf("Hello World from Thread (%u, %u) in Block %u!\n", static_cast<unsigned>(threadIdx.x),
           static_cast<unsigned>(threadIdx.y), static_cast<unsigned>(blockIdx.x));
  const unsigned long long slot = atomicAdd(appended, 1ull) % capacity;
  records[slot] = ThreadRecord{blockIdx.x, threadIdx.x, threadIdx.y};
}

std::string triple(const ThreadRecord& r) {
  return "(block " + std::to_string(r.block) + ", x " + std::to_string(r.x) + ", y " +
         std::to_string(r.y) + ")";
}

// `grid: 0` means one block; gridDim.x holds at most 2^31 - 1.
unsigned blocks_of(const Point& point) {
  const std::int64_t grid = point.grid.value_or(0) <= 0 ? 1 : *point.grid;
  if (grid > INT_MAX)
    throw PointInvalid("grid " + std::to_string(grid) + " exceeds the device's 2^31 - 1 blocks");
  return static_cast<unsigned>(grid);
}

BlockShape launchable_block(const Point& point) {
  const BlockShape block = point.block.value_or(BlockShape{16, 16});
  cuda::require_launchable(block, 0, reinterpret_cast<const void*>(&hello_kernel));
  return block;
}

class Hello final : public cuda::CudaWorkload {
 public:
  explicit Hello(const Point& point)
      : blocks_(blocks_of(point)),
        block_(launchable_block(point)),
        capacity_(static_cast<unsigned long long>(blocks_) *
                  static_cast<unsigned long long>(block_.threads())),
        print_(point.print.value_or(false)),
        records_(capacity_),
        appended_(1),
        host_records_(capacity_) {
    reference_ = "launch-records";  // verify() checks every thread's record, no array reference
    RUNNER_CUDA_CHECK(cudaMemsetAsync(appended_.data(), 0, sizeof(unsigned long long), stream()));
    synchronize();
    if (print_) {
      std::printf("Hello World from the host!\n");
      std::fflush(stdout);  // before the device's lines, which appear at the next synchronisation
    }
  }

  // All bits set: block 2^32 - 1 is outside any launch, so an unwritten slot cannot pass.
  void poison_output() override { records_.poison(stream()); }

  void run() override {
    note_launch(dim3(static_cast<unsigned>(blocks_)),
                dim3(static_cast<unsigned>(block_.x), static_cast<unsigned>(block_.y)));
    hello_kernel<<<blocks_, dim3(static_cast<unsigned>(block_.x), static_cast<unsigned>(block_.y)),
                   0, stream()>>>(records_.data(), appended_.data(), capacity_, print_);
    RUNNER_CUDA_CHECK_LAUNCH();
    ++launches_;
  }

  Verification verify() override {
    unsigned long long appended = 0;
    d2h_ms_ = time_on_stream([&] {
      records_.copy_to_host(host_records_, stream());
      appended_.copy_to_host(std::span<unsigned long long>(&appended, 1), stream());
    });
    synchronize();

    Verification v;
    v.tolerance = 0;
    const unsigned long long expected = launches_ * capacity_;
    if (appended != expected) {
      v.message = std::to_string(launches_) + " launches of " + std::to_string(capacity_) +
                  " threads should have appended " + std::to_string(expected) +
                  " records; the counter says " + std::to_string(appended);
    } else {
      const auto bx = static_cast<unsigned>(block_.x), by = static_cast<unsigned>(block_.y);
      // capacity_ records, each a thread of the launch and none twice: then every thread is there.
      std::vector<bool> seen(capacity_, false);
      unsigned long long foreign = 0, twice = 0;
      std::string first;
      for (const ThreadRecord& r : host_records_) {
        if (r.block >= blocks_ || r.x >= bx || r.y >= by) {
          if (foreign++ == 0 && first.empty()) first = "first: " + triple(r);
          continue;
        }
        const auto id = (static_cast<unsigned long long>(r.block) * by + r.y) * bx + r.x;
        if (!seen[id]) {
          seen[id] = true;
        } else if (twice++ == 0 && first.empty()) {
          first = "first twice: " + triple(r);
        }
      }
      if (foreign > 0 || twice > 0)
        v.message = std::to_string(foreign) + " records unwritten or not a thread of the launch, " +
                    std::to_string(twice) + " threads recorded more than once (" + first + ")";
    }
    v.passed = v.message.empty();
    v.max_rel_err = v.passed ? 0.0 : std::numeric_limits<double>::infinity();
    return v;
  }

 private:
  unsigned blocks_;
  BlockShape block_;
  unsigned long long capacity_;  // threads per launch
  bool print_;
  cuda::DeviceBuffer<ThreadRecord> records_;
  cuda::DeviceBuffer<unsigned long long> appended_;  // records appended since construction
  std::vector<ThreadRecord> host_records_;
  unsigned long long launches_ = 0;
};

// The workload needs the point alone: the hello kernel has no input data (hello_problem.hpp).
std::unique_ptr<Workload> hello_workload(const Point& point, std::shared_ptr<const Problem>) {
  return std::make_unique<Hello>(point);
}

}  // namespace

RUNNER_FACTORY(hello, hello_workload);

}  // namespace runner::kernels::hello
