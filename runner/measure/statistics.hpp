#pragma once
#include <span>
#include <string>

namespace runner {

// Summary of a point's timed samples, in milliseconds.
struct SampleStats {
  int samples = 0;
  double median = 0, min = 0, max = 0, mean = 0, stddev = 0;
  double rsd = 0;  // stddev / mean (relative standard deviation)
};

// Sample standard deviation (n - 1); rsd is 0 for fewer than two samples.
SampleStats summarize(std::span<const double> samples_ms);

// A fraction as a percentage with two significant digits and no exponent: 0.25, 4.1, 23, 123
// (how noise warnings and the run summary write a relative spread).
std::string percent_text(double fraction);

}  // namespace runner
