#pragma once
// Records as an Excel workbook (.xlsx, Office Open XML): what `runner export` writes for
// spreadsheets in every locale. A CSV cell is text that each spreadsheet parses by its locale (in
// a German one "1.5" stays text and "7.344e-06" turns into 0.007344); a workbook cell carries its
// type and its value in one notation for all, so Excel and LibreOffice Calc open it without an
// import dialog and read the numbers as the records hold them.
#include <string>
#include <vector>

#include "runner/results/record.hpp"

namespace runner {

// The workbook's bytes: sheet "records" (a header row, then one row per record, the columns of
// records.csv in its order: numbers as numbers, true/false as booleans, text as text, empty where
// the record has null) and sheet "columns" (the column table: name, type, unit, filled_by,
// meaning). An integer beyond 2^53, which a spreadsheet's double would round, is written as text.
std::string records_xlsx(const std::vector<Record>& records);

// "A", "B", ..., "Z", "AA", ...: the letters of a 0-based column index in a cell reference.
std::string xlsx_column_letters(std::size_t index);

}  // namespace runner
