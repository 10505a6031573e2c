#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace runner {

// Closest candidate by edit distance, for "did you mean" hints; empty when none is close.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace runner
