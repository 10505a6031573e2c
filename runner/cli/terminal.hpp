#pragma once
// What the terminal on a file descriptor can show, by the conventions users set in their
// environment: colours only on a terminal, never with NO_COLOR set (https://no-color.org) or on a
// dumb terminal (TERM=dumb: Emacs shells, some CI logs); lines rewritten in place (\r and the
// erase-line escape) only on a terminal that is not dumb.
namespace runner::cli {

bool colour_allowed(int fd);
bool rewritable_lines(int fd);

}  // namespace runner::cli
