#pragma once
#include <string>
#include <vector>

namespace runner::slurm {

// Slurm's array index syntax, as in `sbatch --array=0-15%4` and scontrol's ArrayTaskId=2-7,9%2.

// "0-3,7,9-10" for {0,1,2,3,7,9,10} (sorted, duplicates dropped); ranges keep the --array line and
// scontrol's output short for thousands of shards.
std::string format_index_list(std::vector<int> indices);

// The indices of "0-3,7,9-15:2%4" (ranges, single values, :step, a trailing %throttle ignored).
// Throws std::invalid_argument for anything else.
std::vector<int> parse_index_list(const std::string& text);

}  // namespace runner::slurm
