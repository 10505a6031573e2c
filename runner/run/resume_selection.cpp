#include "runner/run/resume_selection.hpp"

#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runner/base/errors.hpp"

namespace runner {

namespace {

std::string described(const PointSelection& s) {
  return s.empty() ? "the whole config" : fmt::format("{}", fmt::join(s.arguments(), " "));
}

}  // namespace

PointSelection resumed_selection(const std::filesystem::path& manifest,
                                 const PointSelection& given) {
  std::ifstream in(manifest);
  if (!in) return given;  // a first run, or a shard's first start
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    return given;  // the resume's own checks say what is wrong with the manifest
  }
  if (!doc.is_object()) return given;
  const PointSelection recorded =
      PointSelection::from_json(doc.value("selection", nlohmann::json()));
  if (given.empty() || given == recorded) return recorded;
  throw Refused(fmt::format(
      "--resume: the run in {} measured {}, and this command asks for {}: resuming it with "
      "another selection would leave its records behind. Resume it as it was (no --only or "
      "--set: the manifest holds them), or run the other selection into a new --out",
      manifest.parent_path().string(), described(recorded), described(given)));
}

}  // namespace runner
