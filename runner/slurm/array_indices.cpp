#include "runner/slurm/array_indices.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include <fmt/format.h>

namespace runner::slurm {

std::string format_index_list(std::vector<int> indices) {
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  std::string text;
  for (std::size_t i = 0; i < indices.size();) {
    std::size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += j == i ? fmt::format("{}", indices[i]) : fmt::format("{}-{}", indices[i], indices[j]);
    i = j + 1;
  }
  return text;
}

namespace {
int to_index(std::string_view s, const std::string& whole) {
  int value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || value < 0)
    throw std::invalid_argument(fmt::format("not a Slurm array index list: '{}'", whole));
  return value;
}
}  // namespace

std::vector<int> parse_index_list(const std::string& text) {
  std::string_view list(text);
  if (const auto percent = list.find('%'); percent != std::string_view::npos)
    list = list.substr(0, percent);
  std::vector<int> indices;
  while (!list.empty()) {
    const auto comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    int step = 1;
    if (const auto colon = item.find(':'); colon != std::string_view::npos) {
      step = to_index(item.substr(colon + 1), text);
      item = item.substr(0, colon);
      if (step == 0) throw std::invalid_argument(fmt::format("array step 0 in '{}'", text));
    }
    const auto dash = item.find('-');
    const int first = to_index(item.substr(0, dash), text);
    const int last = dash == std::string_view::npos ? first : to_index(item.substr(dash + 1), text);
    if (last < first) throw std::invalid_argument(fmt::format("descending range in '{}'", text));
    for (int i = first; i <= last; i += step) indices.push_back(i);
  }
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  return indices;
}

}  // namespace runner::slurm
