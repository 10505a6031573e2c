// transpose copy: the bandwidth ceiling of a transpose, a device copy of the same m·n elements,
// read once and written once with fully coalesced 16-byte accesses. Every transpose record
// carries pct_of_copy, its GB/s over this variant's for the same problem. The output is m×n, equal
// to the input (not a transpose), and is verified as such.
//
// A grid-stride kernel rather than cudaMemcpyAsync, so that the block axis means what it means
// for the transposes: block.x · block.y threads per block.
#include "runner/api/gpu/runtime.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/common/vector16.cuh"
#include "kernels/transpose/transpose_cuda_workload.hpp"
#include "runner/api/cuda/residency.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::transpose {

namespace {

// cudaMalloc returns 256-byte aligned memory, so both buffers start on a 16-byte boundary: the
// vectors cover the first count / per_vector · per_vector elements, a scalar loop the rest.
template <typename T>
__global__ void copy_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t count) {
  using Vec = typename Vector16<T>::type;
  constexpr std::int64_t kPerVector = sizeof(Vec) / sizeof(T);
  const std::int64_t threads = std::int64_t{blockDim.x} * blockDim.y;
  const std::int64_t stride = std::int64_t{gridDim.x} * threads;
  const std::int64_t first =
      std::int64_t{blockIdx.x} * threads + std::int64_t{threadIdx.y} * blockDim.x + threadIdx.x;
  const std::int64_t vectors = count / kPerVector;
  const Vec* vin = reinterpret_cast<const Vec*>(in);
  Vec* vout = reinterpret_cast<Vec*>(out);
  for (std::int64_t i = first; i < vectors; i += stride) vout[i] = vin[i];
  for (std::int64_t i = vectors * kPerVector + first; i < count; i += stride) out[i] = in[i];
}

template <typename T>
class Copy final : public CudaTranspose<T> {
 public:
  Copy(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaTranspose<T>(point, std::move(problem),
                         {reinterpret_cast<const void*>(&copy_kernel<T>), 0}),
        blocks_(grid_blocks()) {}

  // The output must equal the input bit for bit: compared with the input regenerated on the device
  // (not the transpose the other variants of the problem are compared with, so in a slot of its
  // own); where that does not fit, with the input widened on the host.
  Verification verify() override {
    const TransposeProblem<T>& p = this->p_;
    const std::size_t count = this->out_.size();
    const T* in = cuda::problem_array_on_device<T>(
        this->problem_, kInputSlot, count,
        [&p, count](T* device, cudaStream_t s) {
          fill_uniform_on_device<T>(device, count, p.seed, 0, s);
          return true;
        },
        this->stream());
    if (in) {
      this->d2h_ms_ = 0;
      this->reference_ = "gpu-exact";
      return cuda::compare_on_device<T, T>(this->out_.data(), in, count, 0.0, this->stream());
    }
    if (input_as_double_.empty()) {
      const auto input = p.host().input.span();
      input_as_double_.assign(input.begin(), input.end());
    }
    this->reference_ = "cpu-double";
    return this->verify_on_host(this->out_, input_as_double_, 0.0);
  }

  void run() override {
    this->note_launch(dim3(blocks_), this->block_dim());
    copy_kernel<T><<<blocks_, this->block_dim(), 0, this->stream()>>>(
        this->in_.data(), this->out_.data(), static_cast<std::int64_t>(this->out_.size()));
    RUNNER_CUDA_CHECK_LAUNCH();
  }

 private:
  // Enough blocks for one vector per thread, capped at a few full waves of resident blocks: past
  // that, more blocks only add scheduling, and each thread loops over several vectors instead.
  unsigned grid_blocks() const {
    constexpr std::int64_t kWaves = 4;
    using Vec = typename Vector16<T>::type;
    const std::int64_t vectors =
        static_cast<std::int64_t>(this->out_.size() * sizeof(T) / sizeof(Vec));
    const std::int64_t threads = this->block_.threads();
    const std::int64_t resident =
        cuda::residency(reinterpret_cast<const void*>(copy_kernel<T>), static_cast<int>(threads), 0)
            .blocks;
    const std::int64_t wanted = std::max<std::int64_t>(1, ceil_div(vectors, threads));
    return static_cast<unsigned>(std::min(wanted, kWaves * resident));
  }

  static constexpr int kInputSlot = 0;   // the input, in the problem's device arrays
  std::vector<double> input_as_double_;  // the copy's host reference: the input itself
  unsigned blocks_;
};

}  // namespace

RUNNER_FACTORY(copy, by_dtype<Copy>);

}  // namespace runner::kernels::transpose
