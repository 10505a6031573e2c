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

std::string Point::problem_key() const {
  std::string s = kernel;
  if (dtype) s += fmt::format(" dtype={}", dtype_name(*dtype));
  if (size) s += fmt::format(" size={}", to_string(*size));
  if (kernel_size) s += fmt::format(" kernel_size={}", *kernel_size);
  return s;
}

std::string Point::key() const {
  std::string s = fmt::format("{}/{}", kernel, variant);
  if (dtype) s += fmt::format(" dtype={}", dtype_name(*dtype));
  if (size) s += fmt::format(" size={}", to_string(*size));
  if (kernel_size) s += fmt::format(" kernel_size={}", *kernel_size);
  if (block) s += fmt::format(" block={}", to_string(*block));
  if (grid) s += fmt::format(" grid={}", *grid);
  if (threads) s += fmt::format(" threads={}", *threads);
  if (print) s += fmt::format(" print={}", *print);
  return s;
}

std::string Point::id() const {
  return fmt::format("p{:016x}", fnv1a64(key()));
}

std::string normalize_point_id(std::string_view id) {
  const bool bare_hex = id.size() == 16 && std::all_of(id.begin(), id.end(), [](char c) {
                          return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                        });
  return bare_hex ? "p" + std::string(id) : std::string(id);
}

}  // namespace runner
