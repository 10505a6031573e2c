#include "runner/run/record_recovery.hpp"

#include <fstream>
#include <set>

#include <fmt/format.h>

#include "runner/base/errors.hpp"
#include "runner/results/csv_records.hpp"

namespace runner {

RecordsOfBothFiles read_records_of_both_files(const std::filesystem::path& jsonl,
                                              const std::filesystem::path& csv) {
  RecordsOfBothFiles found{read_records(jsonl), jsonl, csv};
  JsonlContent& content = found.content;
  found.jsonl_records = content.records.size();
  std::error_code ec;
  if (!std::filesystem::exists(csv, ec)) return found;
  // A point's row is only needed where the JSONL has no line of it at all.
  std::set<std::string> in_jsonl;
  for (const auto& r : content.records) in_jsonl.insert(text_of(r, "point_id"));
  CsvRecords from_csv = read_csv_records(csv, in_jsonl);
  const std::size_t recovered = from_csv.records.size();
  found.csv_records = recovered;
  for (auto& r : from_csv.records) content.records.push_back(std::move(r));
  if (recovered == 0) return found;  // the CSV's own flaws do not matter then
  content.warnings.insert(content.warnings.end(), from_csv.warnings.begin(),
                          from_csv.warnings.end());
  content.dropped_lines.insert(content.dropped_lines.end(), from_csv.dropped_lines.begin(),
                               from_csv.dropped_lines.end());
  content.warnings.push_back(fmt::format(
      "--resume: recovered {} record(s) from {} that {} lacks (emptied, deleted or cut short); "
      "both files get them back",
      recovered, csv.string(), jsonl.string()));
  return found;
}

bool record_files_hold_records(const std::filesystem::path& jsonl,
                               const std::filesystem::path& csv) {
  std::error_code ec;
  if (std::filesystem::exists(jsonl, ec) && std::filesystem::file_size(jsonl, ec) > 0) return true;
  // A row after the header: a second line end.
  std::ifstream in(csv, std::ios::binary);
  std::string line;
  return std::getline(in, line) && std::getline(in, line) &&
         line.find_first_not_of(std::string_view("\r\n \t\0", 5)) != std::string::npos;
}

void refuse_to_discard_records(const std::filesystem::path& manifest_file, const KeptRecords& kept,
                               const RecordsOfBothFiles& found, const std::string& shard_label,
                               bool force_mix) {
  if (force_mix) return;
  const auto read = manifest_if_readable(manifest_file);
  if (!read || !read->is_object()) return;  // check_resume_compatible has judged it already
  const nlohmann::json& doc = *read;
  const auto shard = doc.find("shard");
  if ((shard == doc.end()   ? std::string()
       : shard->is_string() ? shard->get<std::string>()
                            : "?") != shard_label)
    return;
  const auto count = [](const nlohmann::json& v) {
    return v.is_number_unsigned() ? v.get<std::size_t>() : std::size_t{0};
  };
  const std::size_t records = count(doc.value("records", nlohmann::json()));
  const std::size_t ok = doc.contains("counts") && doc["counts"].is_object()
                             ? count(doc["counts"].value("ok", nlohmann::json()))
                             : 0;
  if (kept.records.size() >= records && kept.done.size() >= ok) return;
  const auto holds = [](const std::filesystem::path& file, std::size_t n, const char* how) {
    std::error_code ec;
    return std::filesystem::exists(file, ec)
               ? fmt::format("{} holds {}{}", file.filename().string(), n, how)
               : fmt::format("{} is gone", file.filename().string());
  };
  throw Refused(fmt::format(
      "--resume: {} says the run has {} record(s) ({} ok), but the record files hold {} of its "
      "points ({} ok): {}, {}. Resuming would measure the missing points again and their "
      "measurements would be gone. Restore the record files (a backup or a snapshot of the "
      "folder), or start a new run with another --out; --force-mix resumes anyway",
      manifest_file.string(), records, ok, kept.records.size(), kept.done.size(),
      holds(found.jsonl, found.jsonl_records, ""), holds(found.csv, found.csv_records, " more")));
}

}  // namespace runner
