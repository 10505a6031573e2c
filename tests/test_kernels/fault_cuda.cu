#include "runner/api/cuda/cuda_workload.hpp"
#include "runner/api/cuda/device_buffer.hpp"
#include "tests/test_kernels/fault_workloads.hpp"

namespace runner::kernels::fault {

namespace {

__global__ void oob_write_kernel(float* data) {
  // Far beyond the 1-element allocation: an illegal address, which poisons the context.
  data[(threadIdx.x + 1) * (1ull << 34)] = 1.0f;
}

__global__ void trap_kernel() {
  asm volatile("trap;");
}

__global__ void endless_kernel(volatile int* flag) {
  while (*flag == 0) {
  }
}

enum class Kind { oob_write, trap, endless_loop };

class CudaFault final : public cuda::CudaWorkload {
 public:
  explicit CudaFault(Kind kind) : kind_(kind), buffer_(1) {
    RUNNER_CUDA_CHECK(cudaMemsetAsync(buffer_.data(), 0, sizeof(int), stream()));
  }
  void poison_output() override {}
  void run() override {
    switch (kind_) {
      case Kind::oob_write:
        oob_write_kernel<<<1, 32, 0, stream()>>>(reinterpret_cast<float*>(buffer_.data()));
        break;
      case Kind::trap:
        trap_kernel<<<1, 1, 0, stream()>>>();
        break;
      case Kind::endless_loop:
        endless_kernel<<<1, 1, 0, stream()>>>(buffer_.data());
        break;
    }
    RUNNER_CUDA_CHECK_LAUNCH();
  }
  Verification verify() override {
    synchronize();  // the fault surfaces here
    return {.passed = true};
  }

 private:
  Kind kind_;
  cuda::DeviceBuffer<int> buffer_;
};

}  // namespace

std::unique_ptr<Workload> make_cuda_oob_write(const Point&, std::shared_ptr<const Problem>) {
  return std::make_unique<CudaFault>(Kind::oob_write);
}
std::unique_ptr<Workload> make_cuda_trap(const Point&, std::shared_ptr<const Problem>) {
  return std::make_unique<CudaFault>(Kind::trap);
}
std::unique_ptr<Workload> make_cuda_endless_loop(const Point&, std::shared_ptr<const Problem>) {
  return std::make_unique<CudaFault>(Kind::endless_loop);
}

}  // namespace runner::kernels::fault
