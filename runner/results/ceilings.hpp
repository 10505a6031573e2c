#pragma once
// The measured ceilings of a run (runner/measure/calibration.hpp) applied to its records:
//   pct_peak_bw         gbps in % of the measured copy bandwidth: cudaMemcpy device to device for
//                       CUDA points, the stream-like copy at the point's thread count for CPU ones
//   pct_peak_flops      gflops in % of the measured arithmetic ceiling of the point's dtype:
//                       CUDA: the FMA peak of FP32 / FP64, or cuBLAS SGEMM / DGEMM where that is
//                       higher (FP64 tensor cores), the TF32 cuBLAS figure for a variant whose
//                       precision is tf32; CPU: OpenBLAS SGEMM / DGEMM at its thread count
//   pct_theoretical_bw  gbps in % of memory clock × bus width × 2 (CUDA points; not measured)
// A ceiling is a figure, not a law: a kernel that beats cuBLAS's copy, or a CPU kernel at a size
// where OpenBLAS does better than at the calibrated one, shows more than 100 %. Such a record
// says why in `ceiling_note`, so that no percentage above 100 stands unexplained: the ceiling was
// measured under load (a provisional calibration), it is stale (a run's point beat it before), the
// problem fits in a cache the copy does not, or none of these (then the ceiling is suspect:
// `runner calibrate --check`).
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/api/registry.hpp"
#include "runner/results/record.hpp"

namespace runner {

// Linear in the thread count between calibrated counts, the nearest one outside them; 0 for an
// empty table. `table` is sorted by thread count.
double at_threads(const std::vector<std::pair<int, double>>& table, double threads);

// Whether the bytes a point moves (gbps × its median) fit in `cache_bytes`: then it may well move
// them faster than the copy through memory that the bandwidth ceiling measures.
bool fits_in_cache(const Record& r, std::int64_t cache_bytes);

class Ceilings {
 public:
  Ceilings() = default;
  // From calibration_for_run()'s document; what is missing in it is simply not applied.
  explicit Ceilings(const nlohmann::json& calibration);
  // Adds the pct fields to an ok record that has gbps / gflops, when the ceiling is known, and
  // ceiling_note where one is above 100.
  void apply(Record& r, const Registry& registry) const;

  // What a backend's calibration says of itself, for notes: its verdict and staleness.
  struct State {
    std::string measured;          // when
    std::string under_load;        // a provisional calibration: its first reason; else empty
    std::string stale;             // a stale one: why; else empty
    std::int64_t cache_bytes = 0;  // the last-level cache (CPU) or L2 (GPU) of the device
  };

 private:
  std::string note(const Record& r, const State& state, bool flops_above,
                   bool bandwidth_above) const;
  State cpu_state_, gpu_state_;
  std::map<std::string, double>
      gpu_;  // copy_gbps, fp32_fma_gflops, ... (runner/measure/calibration.cpp)
  double theoretical_bw_gbps_ = 0;
  std::vector<std::pair<int, double>> cpu_copy_gbps_, cpu_sgemm_gflops_, cpu_dgemm_gflops_;
};

}  // namespace runner
