#pragma once
// CUDA transpose variants. A plain C++ header with no CUDA include, so that
// transpose_registration.cpp compiles in CPU-only builds too, where RUNNER_CUDA_FACTORY drops the
// references to these functions. Every variant handles any m×n (edge tiles are guarded).
#include <memory>

#include "runner/api/point.hpp"
#include "runner/api/workload.hpp"

namespace runner::kernels::transpose {

// transpose_naive.cu: one thread per element, any 2-D block.
//   naive_row reads input rows (coalesced) and writes output columns (strided);
//   naive_col reads input columns (strided) and writes output rows (coalesced).
std::unique_ptr<Workload> make_naive_row(const Point&, std::shared_ptr<const Problem>);
std::unique_ptr<Workload> make_naive_col(const Point&, std::shared_ptr<const Problem>);

// transpose_shared.cu: a tile staged in shared memory, so that both the global read and the
// global write are coalesced.
//   smem        block.x × block.x tile (block.y ≤ block.x rows of threads loop over it), no
//               padding: the column read of the tile hits one bank block.x times
//   smem_pad    the same tile padded to block.x × (block.x + 1): no bank conflicts
//   tiled_rows  the classic TILE_DIM × BLOCK_ROWS kernel, block [TILE, BLOCK_ROWS], both
//               compile-time: TILE 8, 16, 32 or 64 and BLOCK_ROWS a power of two dividing it;
//               padded tile
std::unique_ptr<Workload> make_smem(const Point&, std::shared_ptr<const Problem>);
std::unique_ptr<Workload> make_smem_pad(const Point&, std::shared_ptr<const Problem>);
std::unique_ptr<Workload> make_tiled_rows(const Point&, std::shared_ptr<const Problem>);

// transpose_vec.cu: tiled_vec, 16-byte vector loads and stores (float4 / double2), 4 per thread,
// a fixed 256-byte-square tile (64² float, 32² double) and block (256 / 128 threads), swizzled
// unpadded shared memory. No block axis.
std::unique_ptr<Workload> make_tiled_vec(const Point&, std::shared_ptr<const Problem>);

// transpose_copy.cu: a 16-byte-vector grid-stride copy of the m×n input to an m×n output, the
// bandwidth ceiling every transpose is compared with (pct_of_copy).
std::unique_ptr<Workload> make_copy(const Point&, std::shared_ptr<const Problem>);

}  // namespace runner::kernels::transpose
