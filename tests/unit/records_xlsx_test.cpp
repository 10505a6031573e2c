// runner export's workbook: the ZIP container and the cells (LibreOffice Calc reads the whole in a
// German locale in tests/cli/records_readers_test.py).
#include <string>

#include <gtest/gtest.h>

#include "runner/base/stored_zip.hpp"
#include "runner/results/records_xlsx.hpp"

namespace runner {
namespace {

TEST(StoredZip, Crc32IsZipsChecksum) {
  EXPECT_EQ(crc32_of(""), 0u);
  EXPECT_EQ(crc32_of("123456789"), 0xCBF43926u);  // the check value of CRC-32/ISO-HDLC
}

TEST(StoredZip, MembersAreStoredWithTheirNamesAndAnEndRecord) {
  const std::string zip = stored_zip({{"a.txt", "hello"}, {"dir/b.xml", "<x/>"}});
  EXPECT_EQ(zip.substr(0, 4), std::string("PK\x03\x04", 4));
  EXPECT_NE(zip.find("a.txt"), std::string::npos);
  EXPECT_NE(zip.find("hello"), std::string::npos);  // stored, not compressed
  EXPECT_NE(zip.find(std::string("PK\x01\x02", 4)), std::string::npos);
  // The end record: 22 bytes, the last of the archive, counting both members.
  const std::string end = zip.substr(zip.size() - 22);
  EXPECT_EQ(end.substr(0, 4), std::string("PK\x05\x06", 4));
  EXPECT_EQ(static_cast<unsigned char>(end[10]), 2);
}

TEST(RecordsXlsx, ColumnLetters) {
  EXPECT_EQ(xlsx_column_letters(0), "A");
  EXPECT_EQ(xlsx_column_letters(25), "Z");
  EXPECT_EQ(xlsx_column_letters(26), "AA");
  EXPECT_EQ(xlsx_column_letters(51), "AZ");
  EXPECT_EQ(xlsx_column_letters(52), "BA");
  EXPECT_EQ(xlsx_column_letters(701), "ZZ");
  EXPECT_EQ(xlsx_column_letters(702), "AAA");
}

TEST(RecordsXlsx, CellsCarryTheirTypes) {
  Record r;
  r["point_id"] = "p0123456789abcdef";
  r["time_ms_median"] = 7.344e-06;
  r["samples"] = 12;
  r["verified"] = true;
  r["message"] = "a < b & \"c\"";
  r["seed"] = 9223372036854775807LL;  // beyond a spreadsheet's doubles: kept as text
  const std::string xlsx = records_xlsx({r});
  EXPECT_NE(xlsx.find(R"(<c r="B2" t="inlineStr"><is><t xml:space="preserve">p0123456789abcdef)"),
            std::string::npos);
  EXPECT_NE(xlsx.find("<v>7.344e-06</v>"), std::string::npos);
  EXPECT_NE(xlsx.find("<v>12</v>"), std::string::npos);
  EXPECT_NE(xlsx.find(R"(t="b"><v>1</v>)"), std::string::npos);
  EXPECT_NE(xlsx.find("a &lt; b &amp; \"c\""), std::string::npos);
  EXPECT_NE(xlsx.find("<t xml:space=\"preserve\">9223372036854775807</t>"), std::string::npos);
}

}  // namespace
}  // namespace runner
