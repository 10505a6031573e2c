#pragma once
#include <optional>
#include <string_view>

namespace runner {

// What state of the caches a sample sees (`measure:` in a config, the `measure` column).
//  cold  every sample is one execution on caches emptied beforehand (CUDA: the L2 is flushed by
//        writing a scratch buffer larger than it): the time a kernel takes when its data comes
//        from memory, as it does when it runs once inside a larger program. The honest default
//        for memory-bound kernels, whose inputs would otherwise sit partly in a 50 MB L2.
//  hot   every sample is the mean of a batch of back-to-back executions (sampling.hpp says how
//        many): data left in the caches by the previous execution, launch gaps hidden. The
//        steady-state throughput of a kernel called in a loop; the default for compute-bound
//        kernels, whose time does not depend on the cache state.
enum class MeasureMode { cold, hot };

inline std::string_view measure_mode_name(MeasureMode m) {
  return m == MeasureMode::cold ? "cold" : "hot";
}

inline std::optional<MeasureMode> parse_measure_mode(std::string_view s) {
  if (s == "cold") return MeasureMode::cold;
  if (s == "hot") return MeasureMode::hot;
  return std::nullopt;
}

}  // namespace runner
