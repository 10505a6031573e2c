#pragma once
// The column table: every field a record may have — its name, type, unit, meaning and which points
// fill it — in the order of records.csv and of every records.jsonl line. One file holds it,
// runner/results/columns.json: compiled into the runner, read by analysis/results_io.py, printed
// by `runner columns`, and shown in README.md (a test keeps that copy equal). A new field is added
// there first: a record with a field the table lacks is refused.
#include <string>
#include <string_view>
#include <vector>

#include "runner/results/record.hpp"

namespace runner {

enum class ColumnType { text, integer, number, boolean };
std::string_view type_name(ColumnType type);

struct Column {
  std::string name;
  ColumnType type = ColumnType::text;
  std::string unit;       // "ms", "GB/s", "%" ...; empty for counts, flags and text
  std::string filled_by;  // "every point", "CUDA points", "gemm" ...
  std::string meaning;
};

// The table, in column order.
const std::vector<Column>& columns();
const Column* find_column(std::string_view name);

// What to do with a field the table lacks.
enum class UnknownFields {
  refuse,  // a record this runner makes: std::logic_error naming the field
  keep,    // a record read back from an earlier release: kept after the table's, in name order
};

// The record with its fields in table order, every column present (null where it does not apply).
// Throws std::logic_error for a value of the wrong type (text in a number column, say), and for an
// unknown field when `unknown` is refuse.
Record canonical_record(const Record& r, UnknownFields unknown);

// The table as `runner columns` prints it: "md" (a Markdown table), "csv" or "json".
std::string format_columns(std::string_view format);

}  // namespace runner
