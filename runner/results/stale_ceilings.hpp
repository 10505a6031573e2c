#pragma once
// What a run teaches the calibration store about its machine
// (runner/measure/calibration_store.hpp), once its points are measured:
//   observed maxima  each device keeps the best GFLOP/s its CPU points reached per dtype and
//                    thread count: a later calibration below one of them is implausible
//                    (runner/measure/calibration_quality.hpp) and measured again, never kept
//   stale            a quiet calibration that a point beat by more than 10 % with nothing to
//                    explain it (no cache the point fits in) is marked stale, with the point: the
//                    next run measures the device again
// Written into the stored document under the store's lock; a document replaced since the run read
// it is only given the maxima. Never fails a run: a store that cannot be written is warned about.
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/results/record.hpp"

namespace runner {

// `calibration`: the run's calibration section (runner/measure/calibration.hpp
// calibration_for_run), whose "files" say where each document came from.
void note_points_against_ceilings(const nlohmann::json& calibration,
                                  const std::vector<Record>& records);

}  // namespace runner
