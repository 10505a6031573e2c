#pragma once
// Reading a results directory the way a user's tools would: records.csv with an independent
// RFC 4180 parser (not the runner's own code), records.jsonl line by line, manifest.json.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace runner::cli_testing {

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  // The cell of `row` in column `name`; throws if the column is absent.
  const std::string& at(std::size_t row, const std::string& name) const;
};

// Throws std::runtime_error on malformed input (a quote that does not close, a row whose cell
// count differs from the header's).
CsvTable parse_csv(const std::string& text);

// records.jsonl: every line must be a complete JSON object; a final line without its newline is
// reported in `truncated_tail` instead of parsed.
struct JsonlContent {
  std::vector<nlohmann::json> records;
  std::string truncated_tail;
};
JsonlContent read_jsonl_strictly(const std::filesystem::path& file);

nlohmann::json read_json(const std::filesystem::path& file);
std::string read_text(const std::filesystem::path& file);
void write_text(const std::filesystem::path& file, const std::string& text);

}  // namespace runner::cli_testing
