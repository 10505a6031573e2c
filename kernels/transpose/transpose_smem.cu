// transpose smem: a block.x × block.x tile staged in shared memory (block.y ≤ block.x rows of
// threads loop over it), no padding: the column read of the tile hits one bank block.x times. The
// kernel is transpose_shared_tile.cuh's, unpadded.
#include "kernels/transpose/transpose_shared_tile.cuh"
#include "runner/api/variant.hpp"

namespace runner::kernels::transpose {

namespace {

template <typename T>
using Smem = SharedTile<T, false>;

}  // namespace

RUNNER_FACTORY(smem, by_dtype<Smem>);

}  // namespace runner::kernels::transpose
