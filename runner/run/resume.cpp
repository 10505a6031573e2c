#include "runner/run/resume.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runner/base/errors.hpp"
#include "runner/run/output_dir.hpp"

namespace runner {

namespace {

std::string mix_hint(bool fixable) {
  return fixable ? "; use a new --out, or add --force-mix to resume anyway (the records then mix "
                   "two setups: compare them with care)"
                 : "";
}

}  // namespace

std::optional<nlohmann::json> manifest_if_readable(const std::filesystem::path& manifest_file) {
  try {
    std::ifstream in(manifest_file);
    return nlohmann::json::parse(in);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void check_plugins_unchanged(const std::filesystem::path& manifest_file,
                             const nlohmann::json& plugins_now, bool force_mix) {
  const auto read = manifest_if_readable(manifest_file);
  if (!read) return;  // check_resume_compatible has judged an unreadable manifest already
  const nlohmann::json& doc = *read;
  if (force_mix || !doc.is_object() || !doc.contains("plugins") || !doc["plugins"].is_array())
    return;
  std::vector<std::string> changed;
  for (const auto& then : doc["plugins"]) {
    if (!then.is_object()) continue;
    const std::string file = then.value("file", "");
    const std::string hash = then.value("content_hash", "");
    const nlohmann::json* now = nullptr;
    for (const auto& p : plugins_now)
      if (p.value("file", "") == file) now = &p;
    if (!now)
      changed.push_back(fmt::format("{} (in the run, not in the config now)", file));
    else if (now->value("content_hash", "") != hash)
      changed.push_back(fmt::format("{} (content {} when the run began, {} now)", file,
                                    hash.substr(0, 8),
                                    now->value("content_hash", "").substr(0, 8)));
  }
  if (!changed.empty())
    throw Refused(fmt::format(
        "--resume: the plugin source changed since the run began: {}. Its earlier records measured "
        "the other version: restore it, or start a new run{}",
        fmt::join(changed, "; "), mix_hint(true)));
}

void check_resume_compatible(const std::filesystem::path& manifest_file, const RunIdentity& here,
                             bool records_exist, bool force_mix) {
  nlohmann::json doc;
  std::string unreadable;
  {
    std::ifstream in(manifest_file);
    const int open_errno = errno;
    std::error_code ec;
    if (!in && std::filesystem::exists(manifest_file, ec)) {
      // There, but not readable (permissions, an I/O error): not "missing".
      unreadable = fmt::format("it cannot be read ({})", std::strerror(open_errno));
    } else if (!in) {
      unreadable = "it is missing";
    } else {
      try {
        doc = nlohmann::json::parse(in);
        if (!doc.is_object()) unreadable = "it is not a JSON object";
      } catch (const nlohmann::json::exception& e) {
        unreadable = fmt::format("it cannot be read ({})", e.what());
      }
    }
  }
  const std::string dir = manifest_file.parent_path().string();
  if (!unreadable.empty()) {
    if (!records_exist) return;  // nothing to protect: a run that died before its first record
    if (force_mix) return;
    throw Refused(fmt::format(
        "--resume: {}: {}, so nothing says which config, build and device made the records in "
        "{}{}",
        manifest_file.string(), unreadable, dir, mix_hint(true)));
  }
  // Whether collected or not: `collect` copies a shard's fingerprint into the run's manifest, and
  // a local resume would replace its plan and submissions with a local run's manifest.
  if (doc.contains("slurm"))
    throw Refused(
        fmt::format("--resume: {} was made by `runner submit`: resume it with `runner "
                    "submit --resume {}`",
                    dir, shell_quote(dir)));
  if (force_mix) return;
  if (doc.contains("identity") && doc["identity"].is_object()) {
    const auto& there = doc["identity"];
    std::vector<std::string> differ;
    if (there.value("config", "") != here.config)
      differ.push_back(fmt::format("the config text differs from {} (config_text in the manifest)",
                                   doc.value("config_file", "the one it ran")));
    if (there.value("build", "") != here.build)
      differ.push_back(fmt::format("the runner is revision {}, the records were made by {}",
                                   here.build, there.value("build", "?")));
    if (!here.device.empty() && there.value("device", "") != here.device)
      differ.push_back(fmt::format("the device is {}, the records were measured on {}", here.device,
                                   there.value("device", "?")));
    if (!differ.empty())
      throw Refused(fmt::format("--resume: refusing to mix results in {}: {}{}", dir,
                                fmt::join(differ, "; "), mix_hint(true)));
    return;
  }
  // A manifest of an earlier release: one hash of config, build and device.
  if (here.device.empty()) return;  // compared once the device is known
  const std::string there = doc.value("fingerprint", "");
  if (there != here.fingerprint())
    throw Refused(
        fmt::format("--resume: {} was written by another config, build or device "
                    "(fingerprint {} here, {} there): refusing to mix results{}",
                    dir, here.fingerprint(), there.empty() ? "none" : there, mix_hint(true)));
}

KeptRecords keep_for_resume(std::vector<Record> on_disk, const std::vector<Point>& points) {
  std::set<std::string> planned;
  for (const auto& p : points) planned.insert(p.id());
  KeptRecords kept;
  std::map<std::string, std::size_t> slot;  // point id → index in kept.records
  for (auto& r : on_disk) {
    const std::string id = text_of(r, "point_id");
    if (!planned.count(id)) {
      ++kept.foreign;
      kept.left_out.push_back(std::move(r));
      continue;
    }
    const auto it = slot.find(id);
    if (it == slot.end()) {
      slot[id] = kept.records.size();
      kept.records.push_back(std::move(r));
      continue;
    }
    ++kept.duplicates;
    // The latest ok record wins; a record that is not ok never replaces an ok one.
    Record& current = kept.records[it->second];
    if (text_of(r, "status") == "ok" || text_of(current, "status") != "ok") std::swap(current, r);
    kept.left_out.push_back(std::move(r));
  }
  for (const auto& r : kept.records)
    if (text_of(r, "status") == "ok") kept.done.insert(text_of(r, "point_id"));
  return kept;
}

}  // namespace runner
