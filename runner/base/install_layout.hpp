#pragma once
// Where the runner's own files are: the Python of `runner report`, the sbatch templates, the
// example configs, the column table, the kernel author's headers (docs/install.md).
//
// An installed runner is a prefix: PREFIX/bin/runner, PREFIX/share/runner/, PREFIX/include/runner/,
// PREFIX/lib/cmake/runner/. The runner finds its prefix from its own location (/proc/self/exe, so
// a prefix moved or copied elsewhere keeps working), else from $RUNNER_PREFIX. A build tree has
// the same shape (build/bin/runner, build/share/runner/ whose entries link to the source tree), so
// developers run it from there alike. Nothing in the binary names the source or the build tree.
#include <filesystem>
#include <string>
#include <string_view>

namespace runner::install {

// This process's executable (/proc/self/exe).
std::filesystem::path executable();

// The prefix of the running binary: the folder above bin/ that holds share/runner/, or
// $RUNNER_PREFIX when the binary has none beside it. Empty when neither is found.
std::filesystem::path prefix();

// PREFIX/share/runner (empty when prefix() is).
std::filesystem::path share_dir();

// A file or folder of share/runner (`jobs/shard.sbatch`, `analysis/report.py`). Throws UsageError
// (exit 2) naming what was looked for and where when it is missing: a damaged install is never
// papered over with another tree's files.
std::filesystem::path share_path(std::string_view relative);

// "PREFIX (beside the binary)" / "PREFIX (from $RUNNER_PREFIX)" / "none found": for --version
// and the manifest.
std::string describe_prefix();

}  // namespace runner::install
