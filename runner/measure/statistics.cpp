#include "runner/measure/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <fmt/format.h>

namespace runner {

SampleStats summarize(std::span<const double> samples_ms) {
  SampleStats s;
  s.samples = static_cast<int>(samples_ms.size());
  if (samples_ms.empty()) return s;
  std::vector<double> sorted(samples_ms.begin(), samples_ms.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  s.median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  s.min = sorted.front();
  s.max = sorted.back();
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  if (n > 1) {
    double ss = 0;
    for (double x : sorted) ss += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(ss / static_cast<double>(n - 1));
    s.rsd = s.mean > 0 ? s.stddev / s.mean : 0;
  }
  return s;
}

std::string percent_text(double fraction) {
  const double p = 100 * fraction;
  return p < 100 ? fmt::format("{:.2g}", p) : fmt::format("{:.0f}", p);
}

}  // namespace runner
