#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "runner/api/axis.hpp"
#include "runner/api/dtype.hpp"
#include "runner/api/measure_mode.hpp"

namespace runner {

// One cell of the experiment matrix: a kernel variant with a value for each axis it uses.
// Axes the variant does not use stay empty, so two points differ only where the code differs.
struct Point {
  std::string kernel;
  std::string variant;
  std::optional<ProblemSize> size;
  std::optional<Dtype> dtype;
  std::optional<BlockShape> block;
  std::optional<int> threads;
  std::optional<int> kernel_size;
  std::optional<std::int64_t> grid;
  std::optional<bool> print;
  // Added because `baseline:` names it; its median is the speedup denominator of its problem.
  bool is_baseline = false;
  // `gpu_mode: each`: the GPU of the run (its index among the run's GPUs) this copy of the point
  // runs on; part of the key, the id and the problem key. Unset otherwise.
  std::optional<int> gpu;
  // The cache state its samples are taken in (`measure:`, or the kernel's default), set by the
  // runner before the workload is built: a variant that times its own code paths at set-up
  // (cuda::fastest_launch) ranks them as they will be measured. Not part of the key.
  MeasureMode measure = MeasureMode::cold;

  // Canonical text of every set axis, e.g. "gemm/omp_blocked dtype=float size=64x64x64 threads=2".
  // Stable across releases: ids are derived from it.
  std::string key() const;
  // "p" and 16 hex digits of a 64-bit FNV-1a hash of key(): stable, short, safe in file names.
  // The letter keeps every spreadsheet and pandas from reading an id as a number: 1 in 2000
  // bare hex ids is all digits (5771271885670859 comes back as ...860) or digits-e-digits
  // (3248900166281e89 as 3.2489E+101).
  std::string id() const;
  // The data a point works on: points with the same problem key share inputs and reference.
  std::string problem_key() const;

  friend bool operator==(const Point& a, const Point& b) { return a.key() == b.key(); }
};

std::uint64_t fnv1a64(std::string_view text);

// An id as the current release writes it: the bare 16-hex-digit ids of earlier releases get their
// "p", anything else is returned unchanged. Applied wherever ids are read back (resume, collect,
// Slurm plans), so results of older runs still match their points.
std::string normalize_point_id(std::string_view id);

}  // namespace runner
