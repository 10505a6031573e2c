#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace runner {

// One point's result: a flat JSON object whose keys are the columns of the column table
// (runner/results/columns.hpp). The same object is a line of records.jsonl and a row of
// records.csv, so the two files can never disagree.
using Record = nlohmann::ordered_json;

enum class Status { ok, failed, skipped, invalid };
std::string_view status_name(Status s);

// Columns of a CSV holding these records: every column of the table (runner/results/columns.hpp),
// in its order, whatever the records hold; then, for records of earlier releases, the fields the
// table lacks, in name order.
std::vector<std::string> csv_columns(const std::vector<Record>& records);

// RFC 4180: a field with a comma, quote, CR or LF is quoted and its quotes doubled.
std::string csv_escape(std::string_view field);
// A JSON value as a CSV cell: null → empty, strings unquoted (then escaped), numbers as the
// shortest text that reads back as the same value (what records.jsonl holds).
std::string csv_cell(const nlohmann::ordered_json& value);
// One CSV line (CRLF-terminated): the header of `columns`, or a record's cells in that order.
std::string csv_header(const std::vector<std::string>& columns);
std::string csv_row(const Record& r, const std::vector<std::string>& columns);
// Whole CSV text: header row, then one row per record, CRLF line ends as RFC 4180 says.
std::string to_csv(const std::vector<Record>& records);

// A number field of a record (or of any JSON object, e.g. a calibration document); `fallback`
// where it is absent, null or not a number: a record that lacks a figure has null there.
template <typename Json>
double number_or(const Json& j, const char* key, double fallback = 0) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->template get<double>() : fallback;
}

// A text field of a record (or of any JSON object): "" where it is absent, null or not text. A
// record has null in a text column that does not apply to it, and one read back from records.csv
// (a resume that recovers the records records.jsonl lost) has null for every empty cell, "" and
// null alike, which `value(key, "")` throws on.
template <typename Json>
std::string text_of(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->template get<std::string>() : std::string();
}

// Key identifying the problem a record belongs to (kernel, dtype, size, kernel_size), for matching
// a point with its baseline and ceiling.
std::string problem_key_of(const Record& r);

}  // namespace runner
