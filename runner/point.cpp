#include "runner/point.hpp"

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

std::string Point::id() const { return fmt::format("{:016x}", fnv1a64(key())); }

}  // namespace runner
