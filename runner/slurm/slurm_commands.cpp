// Slurm subcommands: submit, status, collect. (Being written: see docs/slurm.md.)
#include <CLI/CLI.hpp>

#include "runner/cli/commands.hpp"

namespace runner::cli {

void add_slurm_commands(CLI::App&) {}
int run_slurm_command(CLI::App&) { return -1; }

}  // namespace runner::cli
