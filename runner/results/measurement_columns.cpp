#include "runner/results/measurement_columns.hpp"

#include <string>

namespace runner {

void add_measurement_fields(Record& r, const Measurement& m) {
  r["measure"] = std::string(measure_mode_name(m.mode));
  r["launches_per_sample"] = m.launches_per_sample;
  r["noise_warning"] = m.noise_warning;
  r["timed_s"] = m.timed_s;
  if (m.guard_timeouts) r["guard_timeouts"] = *m.guard_timeouts;
  if (m.discarded_samples) r["discarded_samples"] = *m.discarded_samples;
  if (m.sm_clock_mhz) r["sm_clock_mhz"] = *m.sm_clock_mhz;
  if (m.temperature_c) r["gpu_temp_c"] = *m.temperature_c;
  if (m.power_w) r["gpu_power_w"] = *m.power_w;
}

}  // namespace runner
