#pragma once
// A ZIP archive whose members are stored, not compressed: the container of an .xlsx workbook
// (runner/results/records_xlsx.hpp) without a compression library. Readers (Excel, LibreOffice,
// Python's zipfile) accept stored members; a records workbook is small enough not to need more.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace runner {

// The bytes of an archive holding `members` (name, content) in that order. Names are relative
// paths with '/' separators. Dates are 1980-01-01: the same records give the same archive.
std::string stored_zip(const std::vector<std::pair<std::string, std::string>>& members);

// CRC-32 as ZIP (and zlib, PNG) computes it: reflected polynomial 0xEDB88320.
unsigned long crc32_of(std::string_view data);

}  // namespace runner
