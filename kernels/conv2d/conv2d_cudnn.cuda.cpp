// conv2d cudnn: cuDNN convolution forward, the vendor reference for the hand-written CUDA conv2d
// variants. Host code only (compiled by the C++ compiler, not nvcc), built where CMake found cuDNN
// (RUNNER_BUILT_CUDNN).
//
// The problem as cuDNN sees it: an NCHW 1×1×m×n float tensor, a KCRS 1×1×ks×ks filter, padding
// r = ks/2 on every side with zeros, stride 1, dilation 1, so the output is 1×1×m×n like the
// input. CUDNN_CROSS_CORRELATION: the reference (conv2d_reference.cpp) does not flip the filter.
//
// Set-up (not timed): descriptors, the algorithm and its workspace. The algorithm is the fastest,
// timed here with events, of the algorithms cuDNN's heuristics offer that do the arithmetic the
// hand-written kernels do: FMA math (no TF32 tensor cores, as cuBLAS runs pedantic FP32 for gemm),
// and no FFT or Winograd transform, whose rounding errors exceed the float tolerance of a direct
// ks²-term sum. Only those few are tried (cudnnFindConvolutionForwardAlgorithm would run every
// algorithm, FFT ones with workspaces of gigabytes, for seconds per point at 8192²), and the choice
// is kept per problem shape for the rest of the worker's points. It is recorded as `cudnn_algo`.
// run() is the one cudnnConvolutionForward.
//
// cuDNN 9 marks this "legacy" convolution API deprecated in favour of its graph API (warnings
// only with CUDNN_WARN_DEPRECATED); it is still shipped and is what most code calls.
#include <cudnn.h>

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "kernels/conv2d/conv2d_cuda_workload.hpp"
#include "runner/api/cuda/device_buffer.hpp"
#include "runner/api/errors.hpp"
#include "runner/api/variant.hpp"

namespace runner::kernels::conv2d {

namespace {

void check(cudnnStatus_t status, const char* call) {
  if (status != CUDNN_STATUS_SUCCESS)
    throw std::runtime_error(
        fmt::format("cuDNN error {} in {}", cudnnGetErrorString(status), call));
}
#define RUNNER_CUDNN_CHECK(call) check((call), #call)

// One handle for the process, created by the first cuDNN point (outside any timed region: it
// loads the library's kernels). Never destroyed, for the reason given for cuBLAS's handle.
cudnnHandle_t process_handle() {
  static const cudnnHandle_t handle = [] {
    cudnnHandle_t h = nullptr;
    RUNNER_CUDNN_CHECK(cudnnCreate(&h));
    return h;
  }();
  return handle;
}

const char* algo_name(cudnnConvolutionFwdAlgo_t algo) {
  switch (algo) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
      return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
      return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
      return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT:
      return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT:
      return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING:
      return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD:
      return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED:
      return "WINOGRAD_NONFUSED";
    default:
      return "unknown";
  }
}

// Direct sums of ks² products, in FMA arithmetic: what the verification tolerance is made for.
bool exact_arithmetic(const cudnnConvolutionFwdAlgoPerf_t& perf) {
  switch (perf.algo) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT:
      break;
    default:
      return false;
  }
  return perf.mathType != CUDNN_TENSOR_OP_MATH &&
         perf.mathType != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
}

// Descriptors owned like any other resource, so that a constructor that throws half-way leaks none.
template <typename Struct, cudnnStatus_t (*Destroy)(Struct*)>
struct Destroyer {
  void operator()(Struct* d) const { Destroy(d); }
};
using TensorDesc =
    std::unique_ptr<cudnnTensorStruct, Destroyer<cudnnTensorStruct, cudnnDestroyTensorDescriptor>>;
using FilterDesc =
    std::unique_ptr<cudnnFilterStruct, Destroyer<cudnnFilterStruct, cudnnDestroyFilterDescriptor>>;
using ConvDesc =
    std::unique_ptr<cudnnConvolutionStruct,
                    Destroyer<cudnnConvolutionStruct, cudnnDestroyConvolutionDescriptor>>;

TensorDesc make_tensor_desc() {
  cudnnTensorDescriptor_t d = nullptr;
  RUNNER_CUDNN_CHECK(cudnnCreateTensorDescriptor(&d));
  return TensorDesc(d);
}
FilterDesc make_filter_desc() {
  cudnnFilterDescriptor_t d = nullptr;
  RUNNER_CUDNN_CHECK(cudnnCreateFilterDescriptor(&d));
  return FilterDesc(d);
}
ConvDesc make_conv_desc() {
  cudnnConvolutionDescriptor_t d = nullptr;
  RUNNER_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&d));
  return ConvDesc(d);
}

class Cudnn final : public CudaConv2dBase {
 public:
  Cudnn(const Point& point, std::shared_ptr<const Problem> problem)
      : CudaConv2dBase(point, std::move(problem), nullptr, BlockShape{}, 0),
        handle_(process_handle()),
        weights_(p_.weights.size()),
        image_(make_tensor_desc()),
        filter_(make_filter_desc()),
        conv_(make_conv_desc()) {
    // Points run one at a time, so the shared handle serves this workload until the next one
    // takes it over.
    RUNNER_CUDNN_CHECK(cudnnSetStream(handle_, stream()));
    h2d_ms_ += time_on_stream([&] { weights_.copy_from_host(p_.weights.span(), stream()); });

    const int ks = p_.ks, r = ks / 2;
    RUNNER_CUDNN_CHECK(cudnnSetTensor4dDescriptor(image_.get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                                  1, 1, m(), n()));
    RUNNER_CUDNN_CHECK(cudnnSetFilter4dDescriptor(filter_.get(), CUDNN_DATA_FLOAT,
                                                  CUDNN_TENSOR_NCHW, 1, 1, ks, ks));
    RUNNER_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(conv_.get(), r, r, 1, 1, 1, 1,
                                                       CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    RUNNER_CUDNN_CHECK(cudnnSetConvolutionMathType(conv_.get(), CUDNN_FMA_MATH));
    std::array<int, 4> dims{};
    RUNNER_CUDNN_CHECK(cudnnGetConvolution2dForwardOutputDim(
        conv_.get(), image_.get(), filter_.get(), &dims[0], &dims[1], &dims[2], &dims[3]));
    if (dims != std::array<int, 4>{1, 1, m(), n()})
      throw std::runtime_error(fmt::format("cuDNN output would be {}x{}x{}x{}, not 1x1x{}x{}",
                                           dims[0], dims[1], dims[2], dims[3], m(), n()));
    choose_algorithm();
  }

  void run() override {
    const float one = 1.0f, zero = 0.0f;
    RUNNER_CUDNN_CHECK(cudnnConvolutionForward(handle_, &one, image_.get(), in_.data(),
                                               filter_.get(), weights_.data(), conv_.get(), algo_,
                                               workspace_bytes_ ? workspace_.data() : nullptr,
                                               workspace_bytes_, &zero, image_.get(), out_.data()));
  }

  nlohmann::json extra_fields() const override {
    nlohmann::json extra = CudaConv2dBase::extra_fields();
    extra["cudnn_algo"] = algo_name(algo_);
    extra["cudnn_workspace_bytes"] = workspace_bytes_;
    return extra;
  }

 private:
  // The fastest exact algorithm for this shape (chosen once per shape in this worker) and its
  // workspace. Leaves the output written, which is harmless: the core poisons it before every
  // sample.
  void choose_algorithm() {
    static std::map<std::array<int, 3>, cudnnConvolutionFwdAlgo_t> chosen;
    const std::array<int, 3> shape{m(), n(), p_.ks};
    if (const auto it = chosen.find(shape); it != chosen.end()) {
      use_algorithm(it->second);
      return;
    }
    std::array<cudnnConvolutionFwdAlgoPerf_t, CUDNN_CONVOLUTION_FWD_ALGO_COUNT> perf{};
    int returned = 0;
    RUNNER_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(
        handle_, image_.get(), filter_.get(), conv_.get(), image_.get(),
        static_cast<int>(perf.size()), &returned, perf.data()));
    std::string tried;
    float best_ms = 0;
    bool found = false;
    for (int i = 0; i < returned; ++i) {
      const auto& p = perf[static_cast<std::size_t>(i)];
      tried +=
          fmt::format("{}{} ({})", i ? ", " : "", algo_name(p.algo), cudnnGetErrorString(p.status));
      if (p.status != CUDNN_STATUS_SUCCESS || !exact_arithmetic(p)) continue;
      if (!use_algorithm(p.algo)) continue;  // no room for its workspace
      run();                                 // the algorithm's first call may load its kernels
      const float ms = time_on_stream([&] {
        for (int r = 0; r < kTrialRuns; ++r) run();
      });
      if (!found || ms < best_ms) {
        best_ms = ms;
        chosen[shape] = p.algo;
        found = true;
      }
    }
    if (!found)
      throw PointInvalid("cuDNN offers no direct FMA algorithm for this problem; it offered " +
                         (tried.empty() ? std::string("none") : tried));
    use_algorithm(chosen[shape]);
  }

  // Sets `algo` and allocates its workspace; false when the device has no room for it.
  bool use_algorithm(cudnnConvolutionFwdAlgo_t algo) {
    std::size_t bytes = 0;
    RUNNER_CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(
        handle_, image_.get(), filter_.get(), conv_.get(), image_.get(), algo, &bytes));
    std::optional<cuda::DeviceBuffer<unsigned char>> workspace;
    if (bytes) {
      workspace = cuda::DeviceBuffer<unsigned char>::try_allocate(bytes);
      if (!workspace) return false;
      workspace_ = std::move(*workspace);
    } else {
      workspace_ = cuda::DeviceBuffer<unsigned char>();
    }
    algo_ = algo;
    workspace_bytes_ = bytes;
    return true;
  }

  static constexpr int kTrialRuns = 2;  // timed runs per candidate algorithm

  cudnnHandle_t handle_;
  cuda::DeviceBuffer<float> weights_;
  TensorDesc image_;  // input and output: both 1×1×m×n
  FilterDesc filter_;
  ConvDesc conv_;
  cudnnConvolutionFwdAlgo_t algo_ = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  std::size_t workspace_bytes_ = 0;
  cuda::DeviceBuffer<unsigned char> workspace_;
};

}  // namespace

RUNNER_FACTORY(cudnn, make_workload<Cudnn>);

}  // namespace runner::kernels::conv2d
