#pragma once
// Seeded random inputs made on the device: the same values as kernels/common/random_fill.hpp makes
// on the host (kernels/common/random_values.hpp), so a GPU point needs no host copy of its inputs.
// Plain C++ declarations: host .cpp files (cuBLAS, cuDNN callers) include them too.
#include "runner/api/gpu/runtime.hpp"

#include <cstddef>
#include <cstdint>

namespace runner::kernels {

// out[i] = the input value of element i of array `stream`, made as T (the values the variants see)
// and stored as Out: T itself for a variant's input, double for a reference computed on the
// device from exactly those values. Enqueued on `stream_handle`.
template <typename T, typename Out = T>
void fill_uniform_on_device(Out* out, std::size_t count, std::uint64_t seed, std::uint64_t stream,
                            cudaStream_t stream_handle);

}  // namespace runner::kernels
