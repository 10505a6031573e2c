#pragma once
#include <filesystem>

#include "runner/results/record_files.hpp"
#include "runner/run/resume.hpp"

namespace runner {

// A resume reads the records of both files of a run: records.jsonl, and records.csv for the points
// the JSONL lacks. A crash on some file systems leaves a file empty or gone, and a hand may delete
// one: either file alone keeps the run's measurements (recovered records come back with the CSV's
// 9 significant digits). A warning says how many were recovered, and from where.
struct RecordsOfBothFiles {
  JsonlContent content;  // the JSONL's records, then those recovered from the CSV
  std::filesystem::path jsonl, csv;
  std::size_t jsonl_records = 0;  // readable records of the JSONL
  std::size_t csv_records = 0;    // readable records of the CSV of points the JSONL lacks
};
RecordsOfBothFiles read_records_of_both_files(const std::filesystem::path& jsonl,
                                              const std::filesystem::path& csv);

// Whether either file holds a record (a CSV with its header alone holds none).
bool record_files_hold_records(const std::filesystem::path& jsonl,
                               const std::filesystem::path& csv);

// Refuses (Refused, exit 3, changing nothing) a resume that would discard measurements: the
// manifest counted more records, or more ok ones, than the files now hold for this run's points
// (both files emptied or deleted, records cut out by hand). The message says what the manifest
// says and what each file holds. `force_mix` resumes anyway (the missing points are measured
// again). A manifest of another shard (`shard_label`: "I/N", empty for a whole run) counted other
// points: it is not compared.
void refuse_to_discard_records(const std::filesystem::path& manifest_file, const KeptRecords& kept,
                               const RecordsOfBothFiles& found, const std::string& shard_label,
                               bool force_mix);

}  // namespace runner
