#include "runner/results/record.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace runner {

std::string_view status_name(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::failed: return "failed";
    case Status::skipped: return "skipped";
    case Status::invalid: return "invalid";
  }
  return "?";
}

std::vector<std::string> csv_columns(const std::vector<Record>& records) {
  std::vector<std::string> columns(kRequiredColumns.begin(), kRequiredColumns.end());
  std::set<std::string> present;
  for (const auto& r : records)
    for (const auto& item : r.items()) present.insert(item.key());
  for (auto c : kRequiredColumns) present.erase(std::string(c));
  for (auto c : kKnownExtraColumns)
    if (present.erase(std::string(c))) columns.emplace_back(c);
  columns.insert(columns.end(), present.begin(), present.end());  // alphabetical
  return columns;
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
    return fmt::format("{:.9g}", d);
  }
  return csv_escape(value.dump());
}

std::string to_csv(const std::vector<Record>& records) {
  const auto columns = csv_columns(records);
  std::string out;
  for (std::size_t i = 0; i < columns.size(); ++i) out += (i ? "," : "") + csv_escape(columns[i]);
  out += "\r\n";
  for (const auto& r : records) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (i) out += ',';
      const auto it = r.find(columns[i]);
      if (it != r.end()) out += csv_cell(*it);
    }
    out += "\r\n";
  }
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
