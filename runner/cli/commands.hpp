#pragma once
#include <optional>
#include <string>
#include <vector>

#include "runner/plugin/plugin_library.hpp"
#include "runner/spec/point_filter.hpp"

namespace CLI {
class App;
}

namespace runner::cli {

struct RunArguments {
  std::string config, out, shard, calibration_dir;
  // --gpus: unset = the config's, else every GPU (given empty: an error, never "all").
  std::optional<std::string> gpus;
  std::string gpu_mode;  // --gpu-mode: empty = the config's, else the default
  bool dry_run = false, resume = false, force_mix = false, quiet = false, no_calibrate = false;
  PointSelection selection;  // --only, --set
};

// --only and --set on a command (runner/cli/selection_options.cpp).
void add_selection_options(CLI::App& command, PointSelection& selection);

struct CalibrateArguments {
  std::string out;  // empty: this machine's store (runner/measure/calibration_store.hpp)
  bool gpu_only = false, cpu_only = false;
  bool check = false;  // judge what is stored (and probe the CPU) instead of measuring
  bool force = false;  // store a measurement even where it is judged implausible or loaded
};

// `runner calibrate`: measures the ceilings of this machine (runner/measure/calibration.hpp),
// judges them, keeps them in this machine's store and prints them; `--check` says how the stored
// ones stand instead (runner/cli/calibrate_check.cpp). Returns the exit code.
int calibrate_command(const CalibrateArguments& args);
int calibrate_check_command(const CalibrateArguments& args);

// `runner CONFIG`: expands, runs and records a matrix; returns the exit code.
int run_command(const RunArguments& args);

// `runner list [--plugin FILE...]`: every kernel and variant, or those the plugins register.
int list_command(const std::vector<std::string>& plugin_files);

// `runner plugin build FILE...`: builds plugins into the cache ahead of a run (on a login node),
// loads each to check it, and prints what it registers. `runner plugin abi`: this build's stamp.
int plugin_build_command(const std::vector<std::string>& files);
int plugin_abi_command();

// Builds and loads plugin files named on the command line (runner/plugin/); UsageError naming the
// file when one cannot be used.
std::vector<plugin::LoadedPlugin> load_plugin_files(const std::vector<std::string>& files);

// `runner validate CONFIG`: checks a config and prints its number of points.
int validate_command(const std::string& config);

// `runner columns [--format md|csv|json]`: the column table (runner/results/columns.hpp).
int columns_command(const std::string& format);

// `runner schema [--out FILE]`: the JSON Schema of configs (configs/schema.json) on stdout, or in
// FILE.
int schema_command(const std::string& out);

// `runner report|compare ...`: runs analysis/<script> under the first Python that has pandas and
// matplotlib ($RUNNER_PYTHON, else python3 on PATH); returns its exit code.
int exec_analysis(const std::string& script, const std::vector<std::string>& args);
// Their entries in `runner --help`, the man page and the completions. main() hands both commands
// to analysis/ before CLI11 parses anything: the options registered here are what the scripts'
// own parsers take (a test compares the two), listed, never parsed.
void add_analysis_commands(CLI::App& app);

// `runner help [COMMAND] [--format text|man|bash|zsh]`: a command's help, or the man page and
// shell completions generated from the option definitions. -1 when it was not given.
void add_help_command(CLI::App& app);
int run_help_command(CLI::App& app);

// `runner export RESULTS_DIR [--out FILE.xlsx]`: the records as a workbook for spreadsheets in
// every locale. run_export_command returns -1 when it was not given.
void add_export_command(CLI::App& app);
int run_export_command();

// Slurm subcommands (runner/slurm/): registered on the app, and dispatched after parsing.
// run_slurm_command returns -1 when none of them was given.
void add_slurm_commands(CLI::App& app);
int run_slurm_command(CLI::App& app);

}  // namespace runner::cli
