#pragma once
#include "runner/measure/sampling.hpp"
#include "runner/results/record.hpp"

namespace runner {

// The record fields of how a point was measured, beyond its time statistics: measure,
// launches_per_sample, noise_warning, and where known guard_timeouts, discarded_samples,
// sm_clock_mhz, gpu_temp_c, gpu_power_w.
void add_measurement_fields(Record& r, const Measurement& m);

}  // namespace runner
