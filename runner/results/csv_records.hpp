#pragma once
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "runner/results/record.hpp"

namespace runner {

// The records of a records.csv, read back into the records they were written from: a resume
// recovers from it the records a records.jsonl lost (emptied or deleted by a crash, a hand, a
// file system), so that either file alone keeps a run's measurements.
//
// Reads what csv_row() writes (RFC 4180: quoted fields may hold commas, quotes and line ends).
// Each cell becomes a value of its column's type in the column table (runner/results/
// columns.hpp): empty → null, integer and number columns through the JSON number grammar ("inf"
// and "nan" as written for non-finite numbers), booleans "true"/"false", text as it is; columns
// the table lacks (earlier releases) stay text. The numbers are the CSV's, 9 significant digits.
// A row whose cell count differs from the header's, or a cell its column cannot hold, is left
// out with a warning naming file:line, its text kept in `dropped_lines`; a last row without its
// line end (cut short by a crash) too.
struct CsvRecords {
  std::vector<Record> records;
  std::vector<std::string> dropped_lines;
  std::vector<std::string> warnings;
};
// Rows whose point_id is in `except` are skipped unread (a resume needs only the points its
// records.jsonl lacks, and 100 000 records held twice cost a gigabyte).
CsvRecords read_csv_records(const std::filesystem::path& file,
                            const std::set<std::string>& except = {});

}  // namespace runner
