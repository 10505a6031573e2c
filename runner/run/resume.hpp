#pragma once
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/api/point.hpp"
#include "runner/base/errors.hpp"
#include "runner/results/record.hpp"
#include "runner/results/run_identity.hpp"

namespace runner {

// Checks the manifest of a folder against this run before anything is rewritten; throws Refused
// (exit 3) when there is no readable manifest but there are records, when the folder was made by
// `runner submit` (resumed with `runner submit --resume`), or when the config, the build or (if
// `here.device` is set) the device differs. `force_mix` accepts all of that but a missing device.
void check_resume_compatible(const std::filesystem::path& manifest_file, const RunIdentity& here,
                             bool records_exist, bool force_mix);

// The manifest of a folder as JSON, or nullopt when it cannot be read or parsed (for the checks
// that come after check_resume_compatible, which says why).
std::optional<nlohmann::json> manifest_if_readable(const std::filesystem::path& manifest_file);

// Refused (exit 3) when a plugin of the run (the manifest's `plugins`, runner/plugin/plugins.hpp)
// changed since the run began: its content hash differs from `plugins_now`'s, or it is gone, so
// that the records of one run never come from two versions of a user's kernel. --force-mix
// accepts it.
void check_plugins_unchanged(const std::filesystem::path& manifest_file,
                             const nlohmann::json& plugins_now, bool force_mix);

// What a resume keeps of the records already written: one record per point of this run (its
// latest ok one, else its latest), every status kept, in file order. Records of points that are
// not in this run and repeated records of one point are dropped and counted.
struct KeptRecords {
  std::vector<Record> records;
  std::set<std::string> done;  // ids whose kept record is ok: not run again
  std::size_t duplicates = 0, foreign = 0;
  std::vector<Record> left_out;  // the foreign and the losing duplicates, to be kept aside
};
KeptRecords keep_for_resume(std::vector<Record> on_disk, const std::vector<Point>& points);

}  // namespace runner
