#include "runner/base/stored_zip.hpp"

#include <array>
#include <cstdint>
#include <stdexcept>

namespace runner {

namespace {

void put16(std::string& out, std::uint32_t v) {
  out += static_cast<char>(v & 0xff);
  out += static_cast<char>((v >> 8) & 0xff);
}

void put32(std::string& out, std::uint32_t v) {
  put16(out, v & 0xffff);
  put16(out, v >> 16);
}

// MS-DOS date of 1980-01-01 (the earliest a ZIP can say), time 00:00.
constexpr std::uint32_t kDosDate = (0u << 9) | (1u << 5) | 1u;
constexpr std::uint32_t kDosTime = 0;

}  // namespace

unsigned long crc32_of(std::string_view data) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t crc = 0xFFFFFFFFu;
  for (const char ch : data)
    crc = table[(crc ^ static_cast<unsigned char>(ch)) & 0xff] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

std::string stored_zip(const std::vector<std::pair<std::string, std::string>>& members) {
  std::string out, directory;
  for (const auto& [name, content] : members) {
    // No ZIP64: a workbook of records stays far below 4 GiB, and a reader of the plain format is
    // then enough.
    if (content.size() >= 0xFFFFFFFFu || out.size() >= 0xFFFFFFFFu)
      throw std::length_error("stored_zip: a member or the archive exceeds 4 GiB");
    const auto crc = static_cast<std::uint32_t>(crc32_of(content));
    const auto size = static_cast<std::uint32_t>(content.size());
    const auto offset = static_cast<std::uint32_t>(out.size());
    // Local file header: version 2.0, no flags, method 0 (stored).
    put32(out, 0x04034b50);
    put16(out, 20);
    put16(out, 0);
    put16(out, 0);
    put16(out, kDosTime);
    put16(out, kDosDate);
    put32(out, crc);
    put32(out, size);
    put32(out, size);
    put16(out, static_cast<std::uint32_t>(name.size()));
    put16(out, 0);
    out += name;
    out += content;
    // Its central directory entry.
    put32(directory, 0x02014b50);
    put16(directory, 20);  // made by: version 2.0
    put16(directory, 20);  // needed to extract
    put16(directory, 0);
    put16(directory, 0);
    put16(directory, kDosTime);
    put16(directory, kDosDate);
    put32(directory, crc);
    put32(directory, size);
    put32(directory, size);
    put16(directory, static_cast<std::uint32_t>(name.size()));
    put16(directory, 0);  // extra field
    put16(directory, 0);  // comment
    put16(directory, 0);  // disk number
    put16(directory, 0);  // internal attributes
    put32(directory, 0);  // external attributes
    put32(directory, offset);
    directory += name;
  }
  const auto directory_offset = static_cast<std::uint32_t>(out.size());
  out += directory;
  // End of central directory.
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, static_cast<std::uint32_t>(members.size()));
  put16(out, static_cast<std::uint32_t>(members.size()));
  put32(out, static_cast<std::uint32_t>(directory.size()));
  put32(out, directory_offset);
  put16(out, 0);
  return out;
}

}  // namespace runner
