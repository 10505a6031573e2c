#pragma once
// The syntax of the Slurm option values that `runner submit` checks itself, before anything is
// written or submitted: a value sbatch would refuse (or read as something else) is a usage error
// naming the option, not a job array that fails on the cluster. Here, in spec/, because both the
// config reader (located errors in `slurm:`) and `runner submit` (its command line) check them.
#include <optional>
#include <string>
#include <string_view>

namespace runner {

// `--mem`: a whole number of megabytes, or with one unit letter K, M, G or T (either case, and
// an optional B after it), as Slurm reads it: 16G, 16GB, 4000M, 4000, 0 (0: all the memory of the
// node). nullopt when `value` is one; else why it is not.
std::optional<std::string> memory_size_problem(std::string_view value);

// `--exclude`: a Slurm hostlist, names and bracketed ranges separated by commas:
// node[01-03],gpu7 or rack[1-2]-n[1,4-6]. nullopt when `value` is one; else why it is not.
std::optional<std::string> hostlist_problem(std::string_view value);

// `--time`: a Slurm time limit, in one of sbatch's forms: minutes, minutes:seconds,
// hours:minutes:seconds, days-hours, days-hours:minutes, days-hours:minutes:seconds, or UNLIMITED
// (INFINITE). The same pattern is the JSON Schema's (configs/schema.json). nullopt when `value`
// is one; else why it is not.
inline constexpr std::string_view kTimeLimitPattern =
    "^([0-9]+(:[0-9]+){0,2}|[0-9]+-[0-9]+(:[0-9]+){0,2}|UNLIMITED|unlimited|INFINITE|infinite)$";
std::optional<std::string> time_limit_problem(std::string_view value);

// One line of `slurm: {setup: [...]}`: rendered verbatim into the batch scripts, so one line
// without a NUL byte. nullopt when fine; else why not.
std::optional<std::string> setup_line_problem(std::string_view line);

}  // namespace runner
