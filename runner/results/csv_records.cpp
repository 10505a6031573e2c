#include "runner/results/csv_records.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "runner/api/point.hpp"
#include "runner/base/errors.hpp"
#include "runner/results/columns.hpp"

namespace runner {

namespace {

// One row of RFC 4180 text from `pos`: its fields, and where the next row starts. No library the
// runner uses reads CSV; this reads exactly what csv_escape() writes. nullopt for a row that
// ends inside a quoted field or without its line end (a write cut short).
struct CsvRow {
  std::vector<std::string> fields;
  std::size_t next = 0;
  int line_ends = 0;  // inside the row's quoted fields: for the next row's line number
};
std::optional<CsvRow> next_row(const std::string& text, std::size_t pos) {
  CsvRow row;
  std::string field;
  bool quoted = false;
  while (pos < text.size()) {
    const char c = text[pos];
    if (quoted) {
      if (c == '"' && pos + 1 < text.size() && text[pos + 1] == '"') {
        field += '"';
        pos += 2;
      } else if (c == '"') {
        quoted = false;
        ++pos;
      } else {
        row.line_ends += c == '\n';
        field += c;
        ++pos;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
      ++pos;
    } else if (c == ',') {
      row.fields.push_back(std::move(field));
      field.clear();
      ++pos;
    } else if (c == '\n' || (c == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n')) {
      row.fields.push_back(std::move(field));
      row.next = pos + (c == '\r' ? 2 : 1);
      return row;
    } else {
      field += c;
      ++pos;
    }
  }
  return std::nullopt;
}

// A cell as a value of its column's type; nullopt when it cannot be one.
std::optional<nlohmann::ordered_json> cell_value(const std::string& cell, const Column* column) {
  if (cell.empty()) return nlohmann::ordered_json(nullptr);
  if (!column || column->type == ColumnType::text) return nlohmann::ordered_json(cell);
  if (column->type == ColumnType::boolean) {
    if (cell == "true" || cell == "false") return nlohmann::ordered_json(cell == "true");
    return std::nullopt;
  }
  if (cell == "inf" || cell == "-inf" || cell == "nan")
    return nlohmann::ordered_json(cell == "nan"   ? std::numeric_limits<double>::quiet_NaN()
                                  : cell == "inf" ? std::numeric_limits<double>::infinity()
                                                  : -std::numeric_limits<double>::infinity());
  const auto value = nlohmann::ordered_json::parse(cell, nullptr, /*allow_exceptions=*/false);
  if (!value.is_number()) return std::nullopt;
  if (column->type == ColumnType::integer && !value.is_number_integer()) return std::nullopt;
  return value;
}

}  // namespace

CsvRecords read_csv_records(const std::filesystem::path& file,
                            const std::set<std::string>& except) {
  CsvRecords out;
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw Refused(fmt::format("{}: is a folder, not a records file", file.string()));
  std::ifstream in(file, std::ios::binary);
  if (!in) return out;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto header = next_row(text, 0);
  if (!header) return out;  // empty, or a header cut short: no row can be read
  std::vector<const Column*> types;
  for (const auto& name : header->fields) types.push_back(find_column(name));
  const auto id_column = std::find(header->fields.begin(), header->fields.end(), "point_id");
  std::size_t pos = header->next;
  int line = 2 + header->line_ends;
  while (pos < text.size()) {
    const auto row = next_row(text, pos);
    if (!row) {
      out.warnings.push_back(fmt::format("{}:{}: dropped a truncated last row ({} bytes)",
                                         file.string(), line, text.size() - pos));
      out.dropped_lines.push_back(text.substr(pos));
      break;
    }
    const std::string raw = text.substr(pos, row->next - pos);
    const int row_line = line;
    pos = row->next;
    line += 1 + row->line_ends;
    if (row->fields.size() == 1 &&
        row->fields[0].find_first_not_of(std::string_view(" \t\0", 3)) == std::string::npos)
      continue;  // a blank line, or NUL bytes a crash left
    if (id_column != header->fields.end() && row->fields.size() == header->fields.size() &&
        except.count(normalize_point_id(row->fields[id_column - header->fields.begin()])))
      continue;
    std::string why;
    Record r = Record::object();
    if (row->fields.size() != header->fields.size()) {
      why = fmt::format("{} cells, the header has {}", row->fields.size(), header->fields.size());
    } else {
      for (std::size_t i = 0; i < row->fields.size() && why.empty(); ++i) {
        if (const auto value = cell_value(row->fields[i], types[i]))
          r[header->fields[i]] = *value;
        else
          why = fmt::format("its {} '{}' is not {}", header->fields[i], row->fields[i],
                            type_name(types[i]->type));
      }
    }
    if (why.empty() && !r.value("point_id", nlohmann::ordered_json()).is_string())
      why = "it has no point_id";
    if (!why.empty()) {
      out.warnings.push_back(
          fmt::format("{}:{}: dropped an unreadable row: {}", file.string(), row_line, why));
      out.dropped_lines.push_back(raw);
      continue;
    }
    r["point_id"] = normalize_point_id(r["point_id"].get<std::string>());
    out.records.push_back(std::move(r));
  }
  return out;
}

}  // namespace runner
