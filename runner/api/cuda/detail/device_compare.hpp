#pragma once
// The kernel side of compare_on_device (runner/api/cuda/device_verification.hpp). Safe to include
// in .cu files.
#include "runner/api/gpu/runtime.hpp"

#include <cstddef>

namespace runner::cuda::detail {

// What one block found over its contiguous chunk of the elements.
struct ComparePartial {
  double ref_max;             // largest |ref|
  double err_max;             // largest |out - ref| over finite outputs
  unsigned long long err_at;  // first index with err_max
  unsigned long long nan_count;
  unsigned long long first_nan;  // first index of a non-finite output (count if none)
};

// Blocks a comparison of `count` elements uses (one partial each).
int compare_blocks(std::size_t count);

template <typename T, typename R>
void launch_compare(const T* out, const R* ref, std::size_t count, ComparePartial* partials,
                    int blocks, cudaStream_t stream);

}  // namespace runner::cuda::detail
