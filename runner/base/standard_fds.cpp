#include "runner/base/standard_fds.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace runner {

void make_standard_fds_safe() {
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // open() returns the lowest free descriptor: this one, since those below it are open.
    const int null_fd = ::open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
    if (null_fd >= 0 && null_fd != fd) {
      ::dup2(null_fd, fd);
      ::close(null_fd);
    }
  }
}

namespace {

// Runs before every shared library's initialiser (the dynamic loader calls an executable's
// .preinit_array first): OpenBLAS, libgomp or CUDA may open files while they start.
void standard_fds_before_anything(int, char**, char**) {
  make_standard_fds_safe();
}

[[gnu::section(".preinit_array"),
  gnu::used]] void (*const kStandardFdsEarly)(int, char**, char**) = standard_fds_before_anything;

}  // namespace

}  // namespace runner
