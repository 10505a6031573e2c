#!/usr/bin/env bash
# tests/gpu/plugins/make_faulty.sh DIR: writes two faulty copies of the tutorial's CUDA plugin
# (examples/own-kernel/my_tile.cu) into DIR, each with one bug, for tests/gpu/test_plugins.cpp and
# scripts/gpu-check plugins:
#   wrong_tile.cu  the write loop one row short: the last row of every tile stays unwritten, a
#                  fast wrong kernel that verification must fail
#   oob_tile.cu    also writes 2^32 elements past its output: an illegal address, a failed point
#                  with the CUDA error (and compute-sanitizer's memcheck must report it)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source=$here/../../../examples/own-kernel/my_tile.cu
out=${1:?usage: make_faulty.sh DIR}
mkdir -p "$out"
write_loop='  for (int r = y; r < kTile; r += kRows)  \/\/ write its columns as rows (coalesced)'
grep -q "write its columns as rows" "$source"
sed "s/$write_loop/  for (int r = y; r < kTile - 1; r += kRows)  \/\/ the bug: one row short/; s/my_tile/wrong_tile/g; s/MyTile/WrongTile/g" \
  "$source" >"$out/wrong_tile.cu"
sed "s/^  __syncthreads();$/  __syncthreads();\n  if (blockIdx.x == 0 \&\& threadIdx.x == 0 \&\& threadIdx.y == 0) out[m * n + (std::int64_t{1} << 32)] = T(1);  \/\/ the bug/; s/my_tile/oob_tile/g; s/MyTile/OobTile/g" \
  "$source" >"$out/oob_tile.cu"
grep -q "the bug: one row short" "$out/wrong_tile.cu"
grep -q "the bug$" "$out/oob_tile.cu"
