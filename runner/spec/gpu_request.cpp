#include "runner/spec/gpu_request.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <fmt/format.h>

namespace runner {

namespace {

constexpr int kMaxGpus = 4096;

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string gpu_item_problem(std::string_view item) {
  const bool uuid = item.starts_with("GPU-") || item.starts_with("MIG-");
  if (uuid || (all_digits(item) && item.size() <= 4)) return "";
  return fmt::format(
      "'{}' is neither a GPU index nor a GPU UUID (GPU-... or MIG-..., as nvidia-smi -L shows "
      "them)",
      item);
}

GpuRequest parse_gpu_request(std::string_view text, GpuRequestSyntax syntax) {
  GpuRequest r;
  r.text = std::string(trim(text));
  r.origin = "--gpus " + r.text;
  const std::string_view t = r.text;
  if (t == "all") return r;
  if (t.empty())
    throw std::invalid_argument("no GPUs named: give all, a count (2) or a list (0,2 or GPU-...)");
  if (t.find(',') == std::string_view::npos && all_digits(t)) {
    if (t.size() > 4 || std::stoi(std::string(t)) < 1 || std::stoi(std::string(t)) > kMaxGpus)
      throw std::invalid_argument(fmt::format(
          "a count of GPUs is 1 to {} (a single GPU by index: {})", kMaxGpus,
          syntax == GpuRequestSyntax::yaml ? fmt::format("[{}]", t) : fmt::format("'{},'", t)));
    r.kind = GpuRequest::Kind::count;
    r.count = std::stoi(std::string(t));
    return r;
  }
  r.kind = GpuRequest::Kind::list;
  std::string_view rest = t;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (item.empty()) {
      if (rest.empty() && !r.items.empty()) break;  // "2," is the list of one
      throw std::invalid_argument("an empty entry in the list of GPUs");
    }
    if (const std::string problem = gpu_item_problem(item); !problem.empty())
      throw std::invalid_argument(problem);
    if (std::find(r.items.begin(), r.items.end(), item) != r.items.end())
      throw std::invalid_argument(fmt::format("GPU {} is named twice", item));
    r.items.emplace_back(item);
  }
  return r;
}

std::optional<GpuMode> parse_gpu_mode(std::string_view text) {
  if (text == "spread") return GpuMode::spread;
  if (text == "each") return GpuMode::each;
  return std::nullopt;
}

std::string_view gpu_mode_name(GpuMode mode) {
  return mode == GpuMode::each ? "each" : "spread";
}

}  // namespace runner
