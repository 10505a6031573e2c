// `runner report` and `runner compare`: the Python of share/runner/analysis/, run by the first
// Python that has what it needs.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include "runner/base/child_command.hpp"
#include "runner/base/errors.hpp"
#include "runner/base/exit_codes.hpp"
#include "runner/base/install_layout.hpp"
#include "runner/cli/commands.hpp"

namespace runner::cli {

namespace {

namespace fs = std::filesystem;

// share/runner/analysis of the installed runner, or RUNNER_ANALYSIS_DIR.
fs::path analysis_dir() {
  if (const char* dir = std::getenv("RUNNER_ANALYSIS_DIR"); dir && *dir) return dir;
  return install::share_path("analysis");
}

// The modules report.py and compare.py import beyond the standard library.
constexpr const char* kModules = "pandas, matplotlib";

// Nothing when `python -c 'import pandas, matplotlib'` succeeds; else the last line of its error.
std::optional<std::string> missing_modules(const std::string& python) {
  CommandOutput r;
  try {
    r = run_child_command({python, "-c", fmt::format("import {}", kModules)}, 60);
  } catch (const std::exception& e) {
    return e.what();
  }
  if (r.exit_code == 0) return std::nullopt;
  std::string err = r.err;
  while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
  const auto nl = err.rfind('\n');
  return err.empty() ? fmt::format("exit {}", r.exit_code)
                     : err.substr(nl == std::string::npos ? 0 : nl + 1);
}

// The Python that runs analysis/: $RUNNER_PYTHON when set (if it has the modules), else the first
// `python3` on PATH that imports pandas and matplotlib (a module's or a virtualenv's, as users
// expect), else the system's /usr/bin/python3 if it does. Refused (exit 3) naming each candidate
// and what it lacks when none does.
std::string analysis_python() {
  if (const char* chosen = std::getenv("RUNNER_PYTHON"); chosen && *chosen) {
    // The user's choice, used as it is, but told plainly when it lacks a module (rather than a
    // traceback from the script's first import).
    if (const auto missing = missing_modules(chosen))
      throw Refused(
          fmt::format("RUNNER_PYTHON={} cannot run runner report and compare, which "
                      "need {}: {}. Install them there, or unset RUNNER_PYTHON to use "
                      "the first python3 on PATH that has them",
                      chosen, kModules, *missing));
    return chosen;
  }
  std::vector<std::string> candidates;
  std::set<std::string> seen;
  // One probe per folder (/bin and /usr/bin are one folder on merged-/usr systems), not per
  // binary: a virtualenv's python3 is a link to the system's, yet another Python, whose packages
  // are its own; deduplicated by the binary, a virtualenv without pandas hid the system Python.
  auto add = [&](const fs::path& candidate) {
    std::error_code ec;
    if (::access(candidate.c_str(), X_OK) != 0) return;
    const fs::path folder = fs::weakly_canonical(candidate.parent_path(), ec);
    if (seen.insert(((ec ? candidate.parent_path() : folder) / "python3").string()).second)
      candidates.push_back(candidate.string());
  };
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');)
      if (!dir.empty()) add(fs::path(dir) / "python3");
  }
  add("/usr/bin/python3");
  std::vector<std::string> why;
  for (const auto& python : candidates) {
    const auto missing = missing_modules(python);
    if (!missing) return python;
    why.push_back(fmt::format("{}: {}", python, *missing));
  }
  // The environment lacks something, not the command line: exit 3, as for the runner.
  throw Refused(fmt::format(
      "runner report and compare need Python 3 with {}, and no python3 found has them ({}). "
      "Install them (Debian/Ubuntu: apt-get install python3-pandas python3-matplotlib; or load "
      "your site's Python module, or activate a virtualenv that has them), or set RUNNER_PYTHON "
      "to a Python that has them",
      kModules, why.empty() ? "no python3 on PATH" : fmt::format("{}", fmt::join(why, "; "))));
}

}  // namespace

int exec_analysis(const std::string& script, const std::vector<std::string>& args) {
  const fs::path path = analysis_dir() / script;
  if (std::error_code ec; !fs::exists(path, ec))
    throw UsageError(
        fmt::format("the runner's file {} is missing (install the runner again)", path.string()));
  const std::string python = analysis_python();
  std::vector<std::string> words = {python, path.string()};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  execvp(python.c_str(), argv.data());
  fmt::print(stderr, "error: cannot run {}: {}\n", python, std::strerror(errno));
  return exit_code::kRefused;
}

void add_analysis_commands(CLI::App& app) {
  // Bound to nothing that is read: the scripts parse these words themselves.
  static std::string text;
  static std::vector<std::string> texts;
  static bool flag = false;
  CLI::App* report = app.add_subcommand(
      "report", "Write figures, report.md and report.html for a results directory");
  report->add_option("results_dir", text, "Results directory (records.csv / records.jsonl)");
  report->add_option("--out", text, "Output directory (default RESULTS_DIR/report)");
  CLI::App* compare = app.add_subcommand(
      "compare",
      "Compare two results directories point by point, with a regression gate (exit 1 when it "
      "fails)");
  compare->add_option("dirs", texts, "DIR_A DIR_B, or one DIR with --reference");
  compare->add_option("--out", text, "CSV to write (default DIR_B/compare.csv)");
  compare->add_option("--floor", text, "Smallest tolerance, a fraction (default 0.02)");
  compare->add_option("--k", text, "Standard errors of the noise band (default 3)");
  compare->add_option("--fail-above", text, "Fail when a point is slower by more than PCT %");
  compare->add_option("--reference", text, "Per-point references with tolerances (YAML)");
  compare->add_flag("--fail-on-noise", flag, "Noisy points that cross the gate fail it too");
}

}  // namespace runner::cli
