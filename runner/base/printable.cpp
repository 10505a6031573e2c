#include "runner/base/printable.hpp"

#include <fmt/format.h>

namespace runner {

namespace {

// The code point of the invisible character starting at `at` (UTF-8), or 0.
char32_t invisible_at(std::string_view text, std::size_t at, std::size_t* length) {
  const auto byte = [&](std::size_t i) {
    return at + i < text.size() ? static_cast<unsigned char>(text[at + i]) : 0u;
  };
  if (byte(0) == 0xc2 && byte(1) >= 0x80 && byte(1) <= 0x9f) {  // C1 controls U+0080-U+009F
    *length = 2;
    return byte(1);
  }
  if (byte(0) == 0xd8 && byte(1) == 0x9c) {  // U+061C arabic letter mark
    *length = 2;
    return 0x061c;
  }
  if (byte(0) == 0xef && byte(1) == 0xbb && byte(2) == 0xbf) {  // U+FEFF byte-order mark
    *length = 3;
    return 0xfeff;
  }
  if (byte(0) != 0xe2 || (byte(1) != 0x80 && byte(1) != 0x81)) return 0;
  const char32_t cp = 0x2000 + ((byte(1) - 0x80) << 6) + (byte(2) & 0x3f);
  const bool hidden = (cp >= 0x200b && cp <= 0x200f) ||  // zero-width, LRM, RLM
                      (cp >= 0x2028 && cp <= 0x202e) ||  // separators, embeddings, overrides
                      (cp >= 0x2060 && cp <= 0x2064) ||  // word joiner, invisible operators
                      (cp >= 0x2066 && cp <= 0x2069);    // isolates
  if (!hidden || (byte(2) & 0xc0) != 0x80) return 0;
  *length = 3;
  return cp;
}

}  // namespace

std::string printable(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto u = static_cast<unsigned char>(c);
    std::size_t length = 0;
    if (c == '\n' && keep_newlines) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\x{:02x}", u);
    } else if (const char32_t cp = invisible_at(text, i, &length)) {
      out += fmt::format("\\u{{{:04x}}}", static_cast<std::uint32_t>(cp));
      i += length - 1;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace runner
