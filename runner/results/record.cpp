#include "runner/results/record.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "runner/results/columns.hpp"

namespace runner {

std::string_view status_name(Status s) {
  switch (s) {
    case Status::ok:
      return "ok";
    case Status::failed:
      return "failed";
    case Status::skipped:
      return "skipped";
    case Status::invalid:
      return "invalid";
  }
  return "?";
}

std::vector<std::string> csv_columns(const std::vector<Record>& records) {
  std::vector<std::string> names;
  for (const auto& c : columns()) names.push_back(c.name);
  std::set<std::string> unknown;
  for (const auto& r : records)
    for (const auto& item : r.items())
      if (!find_column(item.key())) unknown.insert(item.key());
  names.insert(names.end(), unknown.begin(), unknown.end());  // alphabetical
  return names;
}

std::string csv_escape(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string csv_cell(const nlohmann::ordered_json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return csv_escape(value.get<std::string>());
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (!std::isfinite(d)) return d > 0 ? "inf" : (d < 0 ? "-inf" : "nan");
    // The shortest text that reads back as the same double, as records.jsonl holds it: cut to 9
    // digits, a max_rel_err just under its verify_tolerance could read as just over it.
    return fmt::format("{}", d);
  }
  return csv_escape(value.dump());
}

std::string csv_header(const std::vector<std::string>& columns) {
  std::string out;
  for (std::size_t i = 0; i < columns.size(); ++i) out += (i ? "," : "") + csv_escape(columns[i]);
  return out + "\r\n";
}

std::string csv_row(const Record& r, const std::vector<std::string>& columns) {
  std::string out;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i) out += ',';
    const auto it = r.find(columns[i]);
    if (it != r.end()) out += csv_cell(*it);
  }
  return out + "\r\n";
}

std::string to_csv(const std::vector<Record>& records) {
  const auto columns = csv_columns(records);
  std::string out = csv_header(columns);
  for (const auto& r : records) out += csv_row(r, columns);
  return out;
}

std::string problem_key_of(const Record& r) {
  auto get = [&](const char* key) -> std::string {
    const auto it = r.find(key);
    return it == r.end() || it->is_null() ? "" : it->dump();
  };
  return fmt::format("{}|{}|{}|{}|{}|{}", get("kernel"), get("dtype"), get("m"), get("n"), get("k"),
                     get("kernel_size"));
}

}  // namespace runner
