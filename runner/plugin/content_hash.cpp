#include "runner/plugin/content_hash.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace runner::plugin {

namespace {
// FNV-1a 128-bit prime: 2^88 + 2^8 + 0x3b.
constexpr Uint128 kPrime = (static_cast<Uint128>(1) << 88) | 0x13bU;
}  // namespace

ContentHash& ContentHash::add(std::string_view bytes) {
  for (unsigned char c : bytes) {
    h_ ^= c;
    h_ *= kPrime;
  }
  return *this;
}

ContentHash& ContentHash::add_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw std::runtime_error(
        fmt::format("cannot read {}: {}", file.string(), std::strerror(errno)));
  char buffer[1 << 16];
  while (in) {
    in.read(buffer, sizeof buffer);
    add(std::string_view(buffer, static_cast<std::size_t>(in.gcount())));
  }
  return *this;
}

std::string ContentHash::hex() const {
  return fmt::format("{:016x}{:016x}", static_cast<std::uint64_t>(h_ >> 64),
                     static_cast<std::uint64_t>(h_));
}

std::string file_hash(const std::filesystem::path& file) {
  return ContentHash().add_file(file).hex();
}

}  // namespace runner::plugin
