#include "runner/slurm/array_plan.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "runner/slurm/array_indices.hpp"

namespace runner::slurm {

std::vector<ArrayJob> plan_arrays(std::vector<int> shards, int max_array_size, int throttle,
                                  const std::string& file_suffix) {
  if (max_array_size < 1)
    throw std::runtime_error(
        "this cluster has MaxArraySize=0: job arrays are disabled, so shards cannot be submitted");
  std::sort(shards.begin(), shards.end());
  shards.erase(std::unique(shards.begin(), shards.end()), shards.end());
  const std::string percent = throttle > 0 ? fmt::format("%{}", throttle) : "";

  std::vector<int> direct, mapped;
  for (int s : shards) (s < max_array_size ? direct : mapped).push_back(s);
  if (format_index_list(direct).size() > kMaxArrayListChars) {
    mapped.insert(mapped.begin(), direct.begin(), direct.end());
    direct.clear();
  }

  std::vector<ArrayJob> arrays;
  if (!direct.empty())
    arrays.push_back({"", format_index_list(direct) + percent, direct, "",
                      fmt::format("slurm/shard{}.sbatch", file_suffix)});
  const auto chunk = static_cast<std::size_t>(max_array_size);
  for (std::size_t first = 0; first < mapped.size(); first += chunk) {
    const std::vector<int> part(
        mapped.begin() + static_cast<std::ptrdiff_t>(first),
        mapped.begin() + static_cast<std::ptrdiff_t>(std::min(first + chunk, mapped.size())));
    const std::size_t n = arrays.size();
    const std::string part_suffix = n == 0 ? file_suffix : fmt::format("{}.part{}", file_suffix, n);
    const std::string indices = part.size() == 1 ? "0" : fmt::format("0-{}", part.size() - 1);
    arrays.push_back({"", indices + percent, part,
                      fmt::format("slurm/shard_map{}.txt", part_suffix),
                      fmt::format("slurm/shard{}.sbatch", part_suffix)});
  }
  return arrays;
}

}  // namespace runner::slurm
