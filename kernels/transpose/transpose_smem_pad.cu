// transpose smem_pad: the tile of smem padded to block.x × (block.x + 1): no bank conflicts. The
// kernel is transpose_shared_tile.cuh's, padded.
#include "kernels/transpose/transpose_shared_tile.cuh"
#include "runner/api/variant.hpp"

namespace runner::kernels::transpose {

namespace {

template <typename T>
using SmemPad = SharedTile<T, true>;

}  // namespace

RUNNER_FACTORY(smem_pad, by_dtype<SmemPad>);

}  // namespace runner::kernels::transpose
