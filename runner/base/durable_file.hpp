#pragma once
#include <filesystem>
#include <functional>
#include <string_view>

namespace runner {

// Writes a whole file so that readers see the old or the new content, never a mix: a temporary
// file in the same folder, fsync, rename, fsync of the folder. Throws Refused (exit 3) with the
// path and the system's reason (full disk, no permission); the old content is then untouched.
void write_file_atomically(const std::filesystem::path& file, std::string_view content);
// The same for content written piece by piece: `write` calls write_all(fd, ...) for each piece
// and returns false (errno set) when one fails. A file of 100 000 records need not be one string.
void write_file_atomically(const std::filesystem::path& file,
                           const std::function<bool(int fd)>& write);

// Writes all of `text` at the end of fd, again after EINTR; false with errno set when the system
// refuses (a full disk, a file size limit).
bool write_all(int fd, std::string_view text);
// fsync of a folder, so that a file made or renamed in it survives a power loss.
void fsync_dir(const std::filesystem::path& dir);
// Throws Refused "<path>: <what>: <strerror(err)>".
[[noreturn]] void io_error(const std::filesystem::path& p, std::string_view what, int err);

}  // namespace runner
