#include "runner/results/columns.hpp"

#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

namespace runner {

namespace detail {
extern const char* const kColumnsJson;  // generated from columns.json (cmake/WriteColumns.cmake)
}

namespace {

ColumnType parse_type(const std::string& name) {
  if (name == "text") return ColumnType::text;
  if (name == "integer") return ColumnType::integer;
  if (name == "number") return ColumnType::number;
  if (name == "boolean") return ColumnType::boolean;
  throw std::logic_error("runner/results/columns.json: unknown column type '" + name + "'");
}

std::vector<Column> load_table() {
  const auto doc = nlohmann::json::parse(detail::kColumnsJson);
  std::vector<Column> table;
  std::set<std::string> names;
  for (const auto& c : doc) {
    Column column{c.at("name").get<std::string>(), parse_type(c.at("type").get<std::string>()),
                  c.at("unit").get<std::string>(), c.at("filled_by").get<std::string>(),
                  c.at("meaning").get<std::string>()};
    if (!names.insert(column.name).second)
      throw std::logic_error("runner/results/columns.json: column '" + column.name + "' twice");
    table.push_back(std::move(column));
  }
  return table;
}

bool fits(const nlohmann::ordered_json& value, ColumnType type) {
  if (value.is_null()) return true;
  switch (type) {
    case ColumnType::text:
      return value.is_string();
    case ColumnType::integer:
      return value.is_number_integer();
    case ColumnType::number:
      return value.is_number();
    case ColumnType::boolean:
      return value.is_boolean();
  }
  return false;
}

// A Markdown cell: pipes escaped, so that a meaning may mention them.
std::string md_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string_view type_name(ColumnType type) {
  switch (type) {
    case ColumnType::text:
      return "text";
    case ColumnType::integer:
      return "integer";
    case ColumnType::number:
      return "number";
    case ColumnType::boolean:
      return "boolean";
  }
  return "?";
}

const std::vector<Column>& columns() {
  static const std::vector<Column> table = load_table();
  return table;
}

const Column* find_column(std::string_view name) {
  static const std::map<std::string, const Column*, std::less<>> index = [] {
    std::map<std::string, const Column*, std::less<>> m;
    for (const auto& c : columns()) m.emplace(c.name, &c);
    return m;
  }();
  const auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

Record canonical_record(const Record& r, UnknownFields unknown) {
  Record out = Record::object();
  for (const auto& c : columns()) {
    const auto it = r.find(c.name);
    if (it == r.end()) {
      out[c.name] = nullptr;
      continue;
    }
    if (!fits(*it, c.type))
      throw std::logic_error(
          fmt::format("record field '{}' holds {}, but the column table "
                      "(runner/results/columns.json) says {}",
                      c.name, it->dump(), type_name(c.type)));
    out[c.name] = *it;
  }
  std::map<std::string, const Record*> extra;  // name order
  for (const auto& item : r.items())
    if (!find_column(item.key())) extra.emplace(item.key(), &item.value());
  if (!extra.empty() && unknown == UnknownFields::refuse)
    throw std::logic_error(
        fmt::format("record field '{}' is not in the column table "
                    "(runner/results/columns.json): add it there first",
                    extra.begin()->first));
  for (const auto& [name, value] : extra) out[name] = *value;
  return out;
}

std::string format_columns(std::string_view format) {
  if (format == "json") return nlohmann::json::parse(detail::kColumnsJson).dump(1) + "\n";
  std::string out;
  if (format == "csv") {
    out = "name,type,unit,filled_by,meaning\r\n";
    for (const auto& c : columns())
      out += fmt::format("{},{},{},{},{}\r\n", csv_escape(c.name), type_name(c.type),
                         csv_escape(c.unit), csv_escape(c.filled_by), csv_escape(c.meaning));
    return out;
  }
  if (format != "md") throw std::invalid_argument(fmt::format("unknown format '{}'", format));
  out = "| column | type | unit | filled by | meaning |\n| --- | --- | --- | --- | --- |\n";
  for (const auto& c : columns())
    out += fmt::format("| `{}` | {} | {} | {} | {} |\n", c.name, type_name(c.type), md_cell(c.unit),
                       md_cell(c.filled_by), md_cell(c.meaning));
  return out;
}

}  // namespace runner
