#include "runner/slurm/array_plan.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "runner/slurm/array_indices.hpp"

namespace runner::slurm {

int ArrayLimits::elements_per_array() const {
  return max_array_tasks > 0 ? std::min(max_array_tasks, max_array_size) : max_array_size;
}

std::vector<ArrayJob> plan_arrays(std::vector<int> shards, const ArrayLimits& limits, int throttle,
                                  const std::string& file_suffix) {
  if (limits.max_array_size < 1)
    throw std::runtime_error(
        "this cluster has MaxArraySize=0: job arrays are disabled, so shards cannot be submitted");
  std::sort(shards.begin(), shards.end());
  shards.erase(std::unique(shards.begin(), shards.end()), shards.end());
  const std::string percent = throttle > 0 ? fmt::format("%{}", throttle) : "";
  const auto chunk = static_cast<std::size_t>(limits.elements_per_array());

  std::vector<int> direct, mapped;
  for (int s : shards) (s < limits.max_array_size ? direct : mapped).push_back(s);
  if (format_index_list(direct).size() > kMaxArrayListChars) {
    mapped.insert(mapped.begin(), direct.begin(), direct.end());
    direct.clear();
  }

  std::vector<ArrayJob> arrays;
  // The first array's files keep the plain names, so that a run of one array reads as before.
  auto part_suffix = [&] {
    return arrays.empty() ? file_suffix : fmt::format("{}.part{}", file_suffix, arrays.size());
  };
  auto slice = [&](const std::vector<int>& from, std::size_t first) {
    return std::vector<int>(
        from.begin() + static_cast<std::ptrdiff_t>(first),
        from.begin() + static_cast<std::ptrdiff_t>(std::min(first + chunk, from.size())));
  };
  for (std::size_t first = 0; first < direct.size(); first += chunk) {
    const std::vector<int> part = slice(direct, first);
    arrays.push_back({"", format_index_list(part) + percent, part, "",
                      fmt::format("slurm/shard{}.sbatch", part_suffix())});
  }
  for (std::size_t first = 0; first < mapped.size(); first += chunk) {
    const std::vector<int> part = slice(mapped, first);
    const std::string suffix = part_suffix();
    const std::string indices = part.size() == 1 ? "0" : fmt::format("0-{}", part.size() - 1);
    arrays.push_back({"", indices + percent, part, fmt::format("slurm/shard_map{}.txt", suffix),
                      fmt::format("slurm/shard{}.sbatch", suffix)});
  }
  return arrays;
}

}  // namespace runner::slurm
