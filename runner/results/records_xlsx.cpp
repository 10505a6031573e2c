#include "runner/results/records_xlsx.hpp"

#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "runner/base/stored_zip.hpp"
#include "runner/results/columns.hpp"

namespace runner {

namespace {

constexpr const char* kXmlHead = R"(<?xml version="1.0" encoding="UTF-8" standalone="yes"?>)";
constexpr const char* kMain = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
constexpr const char* kRelationships =
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
constexpr const char* kPackageRelationships =
    "http://schemas.openxmlformats.org/package/2006/relationships";

// Text for an XML element: markup escaped, and the control characters XML 1.0 cannot hold at all
// (a message may quote a compiler's output) replaced by U+FFFD.
std::string xml_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (u < 0x20 && c != '\t' && c != '\n' && c != '\r')
      out += "\xEF\xBF\xBD";
    else
      out += c;
  }
  return out;
}

std::string text_cell(const std::string& ref, std::string_view text) {
  // xml:space keeps the spaces a message may begin or end with.
  return fmt::format(R"(<c r="{}" t="inlineStr"><is><t xml:space="preserve">{}</t></is></c>)", ref,
                     xml_text(text));
}

// A double a spreadsheet holds exactly: integers to 2^53.
constexpr double kExactIntegers = 9007199254740992.0;

std::string value_cell(const std::string& ref, const nlohmann::ordered_json& v) {
  if (v.is_null()) return "";
  if (v.is_boolean())
    return fmt::format(R"(<c r="{}" t="b"><v>{}</v></c>)", ref, v.get<bool>() ? 1 : 0);
  if (v.is_number_float()) {
    const double d = v.get<double>();
    // No infinity or NaN in a spreadsheet: the cell says it in words, as records.csv does.
    if (!std::isfinite(d)) return text_cell(ref, d > 0 ? "inf" : (d < 0 ? "-inf" : "nan"));
    return fmt::format(R"(<c r="{}"><v>{}</v></c>)", ref, d);  // shortest round trip
  }
  if (v.is_number_integer()) {
    const double d = v.get<double>();
    if (std::fabs(d) > kExactIntegers) return text_cell(ref, v.dump());
    return fmt::format(R"(<c r="{}"><v>{}</v></c>)", ref, v.dump());
  }
  // An empty text is no cell, as it is an empty field in records.csv.
  if (v.is_string())
    return v.get<std::string>().empty() ? "" : text_cell(ref, v.get<std::string>());
  return text_cell(ref, v.dump());  // a list or an object of an earlier release's record
}

std::string sheet(const std::vector<std::vector<std::string>>& rows_of_cells) {
  std::string xml = fmt::format(R"({}<worksheet xmlns="{}"><sheetData>)", kXmlHead, kMain);
  for (std::size_t r = 0; r < rows_of_cells.size(); ++r) {
    xml += fmt::format(R"(<row r="{}">)", r + 1);
    for (const auto& cell : rows_of_cells[r]) xml += cell;
    xml += "</row>";
  }
  return xml + "</sheetData></worksheet>";
}

std::string ref(std::size_t column, std::size_t row) {
  return xlsx_column_letters(column) + std::to_string(row + 1);
}

}  // namespace

std::string xlsx_column_letters(std::size_t index) {
  std::string letters;
  for (std::size_t n = index + 1; n > 0; n = (n - 1) / 26)
    letters.insert(letters.begin(), static_cast<char>('A' + (n - 1) % 26));
  return letters;
}

std::string records_xlsx(const std::vector<Record>& records) {
  const std::vector<std::string> names = csv_columns(records);
  std::vector<std::vector<std::string>> rows(records.size() + 1);
  for (std::size_t c = 0; c < names.size(); ++c) rows[0].push_back(text_cell(ref(c, 0), names[c]));
  for (std::size_t r = 0; r < records.size(); ++r)
    for (std::size_t c = 0; c < names.size(); ++c)
      if (const auto it = records[r].find(names[c]); it != records[r].end())
        rows[r + 1].push_back(value_cell(ref(c, r + 1), *it));

  std::vector<std::vector<std::string>> table = {{}};
  const char* headers[] = {"name", "type", "unit", "filled_by", "meaning"};
  for (std::size_t c = 0; c < 5; ++c) table[0].push_back(text_cell(ref(c, 0), headers[c]));
  for (const Column& column : columns()) {
    const std::size_t r = table.size();
    table.push_back({text_cell(ref(0, r), column.name),
                     text_cell(ref(1, r), type_name(column.type)),
                     text_cell(ref(2, r), column.unit), text_cell(ref(3, r), column.filled_by),
                     text_cell(ref(4, r), column.meaning)});
  }

  const std::string content_types = fmt::format(
      R"({}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">)"
      R"(<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>)"
      R"(<Default Extension="xml" ContentType="application/xml"/>)"
      R"(<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>)"
      R"(<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>)"
      R"(<Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>)"
      R"(</Types>)",
      kXmlHead);
  const std::string package_rels =
      fmt::format(R"({}<Relationships xmlns="{}"><Relationship Id="rId1" Type="{}/officeDocument" )"
                  R"(Target="xl/workbook.xml"/></Relationships>)",
                  kXmlHead, kPackageRelationships, kRelationships);
  const std::string workbook = fmt::format(
      R"({}<workbook xmlns="{}" xmlns:r="{}"><sheets>)"
      R"(<sheet name="records" sheetId="1" r:id="rId1"/><sheet name="columns" sheetId="2" r:id="rId2"/>)"
      R"(</sheets></workbook>)",
      kXmlHead, kMain, kRelationships);
  const std::string workbook_rels =
      fmt::format(R"({0}<Relationships xmlns="{1}">)"
                  R"(<Relationship Id="rId1" Type="{2}/worksheet" Target="worksheets/sheet1.xml"/>)"
                  R"(<Relationship Id="rId2" Type="{2}/worksheet" Target="worksheets/sheet2.xml"/>)"
                  R"(</Relationships>)",
                  kXmlHead, kPackageRelationships, kRelationships);
  return stored_zip({{"[Content_Types].xml", content_types},
                     {"_rels/.rels", package_rels},
                     {"xl/workbook.xml", workbook},
                     {"xl/_rels/workbook.xml.rels", workbook_rels},
                     {"xl/worksheets/sheet1.xml", sheet(rows)},
                     {"xl/worksheets/sheet2.xml", sheet(table)}});
}

}  // namespace runner
