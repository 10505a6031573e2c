#pragma once
#include <span>

namespace runner {

// Summary of a point's timed samples, in milliseconds.
struct SampleStats {
  int samples = 0;
  double median = 0, min = 0, max = 0, mean = 0, stddev = 0;
  double rsd = 0;  // stddev / mean (relative standard deviation)
};

// Sample standard deviation (n - 1); rsd is 0 for fewer than two samples.
SampleStats summarize(std::span<const double> samples_ms);

}  // namespace runner
