// `runner export RESULTS_DIR [--out FILE.xlsx]`: the records of a run as an Excel workbook, which
// Excel and LibreOffice Calc open without an import dialog and read alike in every locale
// (runner/results/records_xlsx.hpp). docs/analysis.md, "Records in a spreadsheet".
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "runner/base/durable_file.hpp"
#include "runner/base/errors.hpp"
#include "runner/cli/commands.hpp"
#include "runner/results/record_files.hpp"
#include "runner/results/records_xlsx.hpp"

namespace runner::cli {

namespace {

struct ExportCommandLine {
  CLI::App* command = nullptr;
  std::string dir, out;
};

ExportCommandLine& command_line() {
  static ExportCommandLine c;
  return c;
}

int export_records(const std::filesystem::path& dir, std::filesystem::path out) {
  const std::filesystem::path jsonl = dir / "records.jsonl";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(jsonl, ec))
    throw UsageError(
        fmt::format("{}: no records.jsonl there (a results folder of `runner CONFIG`, "
                    "or of `runner collect` for a Slurm run)",
                    dir.string()));
  const JsonlContent content = read_records(jsonl);
  for (const auto& w : content.warnings) spdlog::warn("{}", w);
  if (out.empty()) out = dir / "records.xlsx";
  write_file_atomically(out, records_xlsx(content.records));
  fmt::print("{} records -> {}\n", content.records.size(), out.string());
  return 0;
}

}  // namespace

void add_export_command(CLI::App& app) {
  ExportCommandLine& c = command_line();
  c.command = app.add_subcommand(
      "export",
      "Write a run's records as an Excel workbook (.xlsx): Excel and LibreOffice open it without "
      "an import dialog and read every number alike in any locale");
  c.command->add_option("results_dir", c.dir, "Results directory (holds records.jsonl)")
      ->required();
  c.command->add_option("--out", c.out, "Workbook to write (default RESULTS_DIR/records.xlsx)");
}

int run_export_command() {
  const ExportCommandLine& c = command_line();
  if (!c.command || !*c.command) return -1;
  return export_records(c.dir, c.out);
}

}  // namespace runner::cli
