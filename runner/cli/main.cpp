// The `runner` command line: `runner CONFIG` runs a matrix; subcommands validate, list, report,
// compare (and, from runner/slurm/, submit, status, collect).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "runner/api/gpu_info.hpp"
#include "runner/api/registry.hpp"
#include "runner/base/build_info.hpp"
#include "runner/base/diagnostic_stream.hpp"
#include "runner/base/errors.hpp"
#include "runner/base/exit_codes.hpp"
#include "runner/base/install_layout.hpp"
#include "runner/base/interrupt.hpp"
#include "runner/base/printable.hpp"
#include "runner/base/standard_fds.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/process_setup.hpp"
#include "runner/cli/terminal.hpp"
#include "runner/measure/calibration.hpp"
#include "runner/measure/environment.hpp"
#include "runner/measure/host_facts.hpp"
#include "runner/run/experiment.hpp"
#include "runner/run/output_dir.hpp"
#include "runner/spec/config.hpp"
#include "runner/spec/config_error.hpp"
#include "runner/spec/did_you_mean.hpp"
#include "runner/spec/matrix.hpp"

namespace runner::cli {

namespace {

std::string version_text() {
  return fmt::format(
      "runner {} (git {}, {}, CUDA {})\nprefix: {}", build_info::kVersion, build_info::kGitRevision,
      build_info::kCxxCompiler,
      std::string(build_info::kCudaCompiler).find_first_not_of(' ') == std::string::npos
          ? "off"
          : fmt::format("{} for sm {}", build_info::kCudaCompiler, build_info::kCudaArchitectures),
      install::describe_prefix());
}

}  // namespace

}  // namespace runner::cli

int main(int argc, char** argv) {
  using namespace runner;
  using namespace runner::cli;
  make_standard_fds_safe();      // before the first file is opened (also run before main)
  make_diagnostics_unfailing();  // before spdlog keeps a copy of stderr
  spdlog::set_default_logger(spdlog::stderr_color_mt("runner", colour_allowed(STDERR_FILENO)
                                                                   ? spdlog::color_mode::always
                                                                   : spdlog::color_mode::never));
  spdlog::set_pattern("%^%l%$: %v");
  // SPDLOG_LEVEL=debug: where a run's time goes outside its points (runner/run/experiment.cpp).
  spdlog::cfg::load_env_levels();
  fit_openblas_to_address_space(argv);
  // (A run executes the runner again once it has set its OpenMP environment: the second line
  // counts from the first start, both loads of the libraries.)
  if (spdlog::should_log(spdlog::level::debug))
    if (const auto s = seconds_since_process_start())
      spdlog::debug("{:.3f} s from the process's start to main (loading its libraries{})", *s,
                    std::getenv("RUNNER_ENVIRONMENT_PREPARED") ? ", twice" : "");

  // `runner CONFIG ...` is `runner run CONFIG ...`: insert the subcommand when the first word is
  // not one, so CLI11 sees a single grammar.
  static const std::set<std::string> kCommands = {
      "run",     "validate",  "list",   "columns", "report", "compare", "submit", "status",
      "collect", "calibrate", "cancel", "schema",  "plugin", "export",  "help"};
  std::vector<std::string> words(argv + 1, argv + argc);
  // `report` and `compare` belong to analysis/*.py, whose own parser knows their options: every
  // word after the subcommand goes there as written. Through CLI11 the option names it does not
  // know (--out, --floor) were dropped and `--out=X` ignored.
  if (!words.empty() && (words[0] == "report" || words[0] == "compare")) {
    try {
      return exec_analysis(words[0] + ".py",
                           std::vector<std::string>(words.begin() + 1, words.end()));
    } catch (const UsageError& e) {
      fmt::print(stderr, "error: {}\n", printable(e.what(), /*keep_newlines=*/true));
      return exit_code::kUsage;
    } catch (const Refused& e) {
      fmt::print(stderr, "error: {}\n", printable(e.what(), /*keep_newlines=*/true));
      return exit_code::kRefused;
    }
  }
  if (!words.empty() && words[0][0] != '-' && !kCommands.count(words[0])) {
    // A first word that is neither a command nor a file is a mistyped command more often than a
    // missing config: say so, with the closest command.
    std::error_code ec;
    const std::string& first = words[0];
    if (!std::filesystem::exists(first, ec) && first.find('/') == std::string::npos &&
        !first.ends_with(".yaml") && !first.ends_with(".yml")) {
      const std::string near =
          closest_match(first, std::vector<std::string>(kCommands.begin(), kCommands.end()));
      fmt::print(stderr, "error: '{}' is neither a command nor a config file{}\nCommands: {}\n",
                 first, near.empty() ? "" : fmt::format("; did you mean '{}'?", near),
                 fmt::join(kCommands, ", "));
      return exit_code::kUsage;
    }
    words.insert(words.begin(), "run");
  }

  CLI::App app{
      "runner: runs a YAML matrix of CUDA and OpenMP kernel variants, verifies every point against "
      "a "
      "reference, times it, and writes records.jsonl, records.csv and manifest.json",
      "runner"};
  app.set_version_flag("-V,--version", version_text());
  app.require_subcommand(0, 1);

  // `--out ""` named no folder and silently meant the default one.
  const CLI::Validator kFolderName(
      [](const std::string& name) { return name.empty() ? "an empty name: give a folder" : ""; },
      "DIR");
  RunArguments run_args;
  auto* run =
      app.add_subcommand("run", "Run every point of a config (the default: `runner CONFIG`)");
  run->add_option("config", run_args.config, "Experiment config (YAML)")->required();
  run->add_option("--out", run_args.out,
                  "Results directory (default results/<experiment>/<UTC time>-<host>)")
      ->check(kFolderName);
  run->add_flag("--dry-run", run_args.dry_run, "Print the points and exit");
  run->add_flag("--resume", run_args.resume, "Skip points already ok in --out, retry the others");
  run->add_flag("--force-mix", run_args.force_mix,
                "With --resume: accept records of another config, build or device");
  run->add_option("--shard", run_args.shard,
                  "Run only the I-th of N cost-balanced slices (I/N, 0-based) into OUT/shards/I.*");
  add_selection_options(*run, run_args.selection);
  run->add_flag("-q,--quiet", run_args.quiet, "No progress lines");
  run->add_option("--calibration-dir", run_args.calibration_dir,
                  "Measured ceilings of the devices (default: this machine's, in "
                  "~/.cache/runner/calibration; $RUNNER_CALIBRATION_DIR first)");
  run->add_option("--gpus", run_args.gpus,
                  "GPUs to use: all (default: every GPU this process may see), N (the first N), "
                  "or a list of indices or UUIDs (0,2 / GPU-...; one GPU as 2,)");
  run->add_option("--gpu-mode", run_args.gpu_mode,
                  "spread (default: each point once, on one of the GPUs) or each (every GPU "
                  "point on every GPU, to compare them)")
      ->check(CLI::IsMember({"spread", "each"}));
  run->add_flag("--no-calibrate", run_args.no_calibrate,
                "Use only ceilings already stored; never measure missing ones first (their records "
                "lack pct_peak_*)");

  CalibrateArguments calibrate_args;
  auto* calibrate = app.add_subcommand("calibrate",
                                       "Measure this machine's ceilings (copy bandwidth, FMA peak, "
                                       "cuBLAS / OpenBLAS GEMM) for pct_peak_*");
  calibrate->add_option("--out", calibrate_args.out,
                        "Folder of the calibration files (default: this machine's, in "
                        "~/.cache/runner/calibration; $RUNNER_CALIBRATION_DIR first)");
  auto* gpu_only = calibrate->add_flag("--gpu-only", calibrate_args.gpu_only, "Only the GPU");
  calibrate->add_flag("--cpu-only", calibrate_args.cpu_only, "Only the CPU")->excludes(gpu_only);
  calibrate->add_flag("--check", calibrate_args.check,
                      "Measure nothing: say whether the stored ceilings of this machine hold (a "
                      "quick CPU probe included); exit 1 when one is missing, loaded or stale");
  calibrate->add_flag("--force", calibrate_args.force,
                      "Store the measurement even where it is judged implausible or measured "
                      "under load");

  std::string validate_config;
  auto* validate = app.add_subcommand("validate", "Check a config and print its number of points");
  validate->add_option("config", validate_config, "Experiment config (YAML)")->required();

  std::vector<std::string> list_plugins;
  auto* list =
      app.add_subcommand("list", "List kernels and variants, and whether each can run here");
  list->add_option("--plugin", list_plugins,
                   "List only what these plugin files (.cu, .cpp, .so) register");

  std::vector<std::string> plugin_files;
  auto* plugin = app.add_subcommand(
      "plugin", "Your own kernels as plugins (docs/own-kernel.md): build them ahead of a run");
  plugin->require_subcommand(1);
  auto* plugin_build = plugin->add_subcommand(
      "build", "Compile plugin sources into the cache (as a run would) and load each to check it");
  plugin_build->add_option("files", plugin_files, "Plugin sources (.cu, .cpp) or libraries (.so)")
      ->required();
  auto* plugin_abi = plugin->add_subcommand(
      "abi", "Print the stamp of this build that plugins must carry (runner_add_plugin uses it)");

  std::string columns_format = "md";
  auto* columns = app.add_subcommand(
      "columns", "Print the column table: every field of a record, its type, unit and meaning");
  columns->add_option("--format", columns_format, "md (default), csv or json")
      ->check(CLI::IsMember({"md", "csv", "json"}));

  std::string schema_out;
  auto* schema = app.add_subcommand(
      "schema",
      "Print the JSON Schema of configs (for editors; configs/schema.json is its output)");
  schema->add_option("--out", schema_out, "Write it to this file instead of stdout");

  add_analysis_commands(app);
  add_help_command(app);

  add_export_command(app);
  add_slurm_commands(app);

  try {
    std::reverse(words.begin(), words.end());
    app.parse(words);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return exit_code::kUsage;
  }

  try {
    if (*run) {
      if (!run_args.dry_run) prepare_process_environment(argv);
      install_interrupt_handlers();
      return run_command(run_args);
    }
    if (*calibrate) {
      prepare_process_environment(argv);  // the CPU ceilings under the binding runs get
      return calibrate_args.check ? calibrate_check_command(calibrate_args)
                                  : calibrate_command(calibrate_args);
    }
    if (*validate) return validate_command(validate_config);
    if (*list) return list_command(list_plugins);
    if (*plugin_build) return plugin_build_command(plugin_files);
    if (*plugin_abi) return plugin_abi_command();
    if (*columns) return columns_command(columns_format);
    if (*schema) return schema_command(schema_out);
    if (const int code = run_help_command(app); code >= 0) return code;
    if (const int code = run_export_command(); code >= 0) return code;
    if (const int code = run_slurm_command(app); code >= 0) return code;
    fmt::print(stderr, "{}", app.help());
    return exit_code::kUsage;
  } catch (const ConfigError& e) {
    fmt::print(stderr, "{}\n", e.located());
    if (!e.details().empty()) fmt::print(stderr, "{}\n", e.details());
    return exit_code::kUsage;
  } catch (const CLI::ValidationError& e) {
    fmt::print(stderr, "error: {}\n", printable(e.what(), /*keep_newlines=*/true));
    return exit_code::kUsage;
  } catch (const UsageError& e) {
    fmt::print(stderr, "error: {}\n", printable(e.what(), /*keep_newlines=*/true));
    return exit_code::kUsage;
  } catch (const std::exception& e) {
    // Refused, and whatever else keeps the command from finishing: the environment, not a point.
    fmt::print(stderr, "error: {}\n", printable(e.what(), /*keep_newlines=*/true));
    return exit_code::kRefused;
  }
}
