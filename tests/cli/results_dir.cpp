#include "tests/cli/results_dir.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace runner::cli_testing {

const std::string& CsvTable::at(std::size_t row, const std::string& name) const {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return rows.at(row).at(i);
  throw std::out_of_range("no column " + name);
}

CsvTable parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, field_started = false;
  std::size_t i = 0;
  auto end_field = [&] {
    record.push_back(field);
    field.clear();
    field_started = false;
  };
  while (i < text.size()) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        ++i;
        if (i < text.size() && text[i] != ',' && text[i] != '\r' && text[i] != '\n')
          throw std::runtime_error("CSV: text after a closing quote at byte " + std::to_string(i));
        continue;
      }
      field += c;
      ++i;
      continue;
    }
    if (c == '"' && !field_started && field.empty()) {
      quoted = true;
      field_started = true;
      ++i;
    } else if (c == ',') {
      end_field();
      ++i;
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      end_field();
      records.push_back(std::move(record));
      record.clear();
      i += 2;
    } else if (c == '\n') {
      throw std::runtime_error("CSV: bare LF outside quotes at byte " + std::to_string(i) +
                               " (rows must end with CRLF)");
    } else if (c == '"') {
      throw std::runtime_error("CSV: quote inside an unquoted field at byte " + std::to_string(i));
    } else {
      field += c;
      field_started = true;
      ++i;
    }
  }
  if (quoted) throw std::runtime_error("CSV: unterminated quoted field");
  if (field_started || !record.empty()) throw std::runtime_error("CSV: last row lacks its CRLF");
  if (records.empty()) throw std::runtime_error("CSV: no header");
  CsvTable table;
  table.header = std::move(records.front());
  for (std::size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() != table.header.size())
      throw std::runtime_error("CSV: row " + std::to_string(r) + " has " +
                               std::to_string(records[r].size()) + " cells, the header " +
                               std::to_string(table.header.size()));
    table.rows.push_back(std::move(records[r]));
  }
  return table;
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

JsonlContent read_jsonl_strictly(const std::filesystem::path& file) {
  const std::string text = read_text(file);
  JsonlContent content;
  std::size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    const std::size_t end = text.find('\n', pos);
    ++line_no;
    if (end == std::string::npos) {
      content.truncated_tail = text.substr(pos);
      break;
    }
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    try {
      content.records.push_back(nlohmann::json::parse(line));
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(file.string() + ":" + std::to_string(line_no) +
                               ": not JSON: " + e.what());
    }
    if (!content.records.back().is_object())
      throw std::runtime_error(file.string() + ":" + std::to_string(line_no) +
                               ": not a JSON object");
  }
  return content;
}

nlohmann::json read_json(const std::filesystem::path& file) {
  return nlohmann::json::parse(read_text(file));
}

}  // namespace runner::cli_testing
