#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace runner::slurm {

// The folder of the sbatch templates (shard.sbatch, collect.sbatch): $RUNNER_JOBS_DIR if set, else
// the jobs/ folder of the source tree the binary sits in (build-*/bin/runner → ../../jobs), else
// the source tree it was built from.
std::filesystem::path jobs_dir();

// Fills a template (jobs/README.md, "Rendering rules"): every {{name}} is replaced by its value
// from `fields`. A name without a value, or a "{{" left over, is an error naming `template_name`;
// fields the template does not use are fine (collect.sbatch uses a subset).
std::string render_template(const std::string& text,
                            const std::map<std::string, std::string>& fields,
                            const std::string& template_name);

// "#SBATCH --option=value", or "" when value is empty (the template's *_line fields).
std::string sbatch_line(const std::string& option, const std::string& value);

// One "#SBATCH ..." line per sbatch option, joined by newlines. A word that does not start with '-'
// continues the option before it ("--mail-type" "END" → "#SBATCH --mail-type END").
// Throws std::invalid_argument for a first word without '-' or a line break in a word.
std::string sbatch_extra_lines(const std::vector<std::string>& options);

// The setup_lines field: slurm.setup's lines verbatim, in order, joined by newlines ("" for
// none). Throws std::invalid_argument for a line holding a line break or a NUL byte.
std::string setup_lines(const std::vector<std::string>& lines);

// Paths go verbatim into #SBATCH lines (where Slurm expands %j, %A ...) and into the bash body of
// the scripts: refuse whitespace, quotes, '$', '`', '\', '%' and the like instead of quoting them.
// Throws std::invalid_argument naming `what`.
void require_plain_path(const std::filesystem::path& path, const std::string& what);

// A value for an #SBATCH line (partition, time, gres ...): one line, no '#'-comment surprises.
void require_plain_value(const std::string& value, const std::string& what);

}  // namespace runner::slurm
