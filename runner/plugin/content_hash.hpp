#pragma once
// Content hashes of plugin sources: FNV-1a over 128 bits (32 hex digits), which names a plugin
// build in the cache and in the manifest. Not a cryptographic hash: it tells edits apart, it does
// not authenticate.
#include <filesystem>
#include <string>
#include <string_view>

namespace runner::plugin {

__extension__ using Uint128 = unsigned __int128;  // GCC and Clang; __extension__ for -Wpedantic

class ContentHash {
 public:
  ContentHash& add(std::string_view bytes);
  // The file's bytes; std::runtime_error naming it when it cannot be read.
  ContentHash& add_file(const std::filesystem::path& file);
  std::string hex() const;  // 32 hex digits

 private:
  Uint128 h_ = (static_cast<Uint128>(0x6c62272e07bb0142ULL) << 64) |
               0x62b821756295c58dULL;  // FNV-1a 128-bit offset basis
};

// ContentHash of one file's bytes.
std::string file_hash(const std::filesystem::path& file);

}  // namespace runner::plugin
