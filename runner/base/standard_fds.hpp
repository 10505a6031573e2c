#pragma once

namespace runner {

// File descriptors 0, 1 and 2 of a process started with them closed (`runner ... >&- 2>&-`, as
// some batch wrappers do) would be taken by the first files the runner opens: progress lines would
// then be written into records.jsonl or the folder's lock file. Each closed one is opened on
// /dev/null first thing, before the shared libraries' initialisers run (a `.preinit_array` entry
// of the executable), so no file the runner opens can ever be fd 0, 1 or 2.
//
// Calling it again is harmless (nothing is closed then); main calls it so that the object, and
// with it the early entry, is linked into every binary that runs commands.
void make_standard_fds_safe();

}  // namespace runner
