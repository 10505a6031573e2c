#include "runner/api/point.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace runner {

std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a 64-bit offset basis
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Point::key(), id() and problem_key() are spelled by the axis table: runner/spec/axes.cpp.

std::string normalize_point_id(std::string_view id) {
  const bool bare_hex = id.size() == 16 && std::all_of(id.begin(), id.end(), [](char c) {
                          return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                        });
  return bare_hex ? "p" + std::string(id) : std::string(id);
}

}  // namespace runner
