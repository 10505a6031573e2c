// Point ids survive every reader as text; a bad config never touches an earlier run, even when
// pointed at its folder with --resume.
#include <regex>

#include <gtest/gtest.h>

#include "tests/hostile/hostile.hpp"

namespace runner::hostile {
namespace {

using namespace cli_testing;

std::vector<std::string> shipped_configs() {
  std::vector<std::string> names;
  const std::filesystem::path configs = source_dir() / "configs";
  for (const auto& e : std::filesystem::recursive_directory_iterator(configs))
    if (e.path().extension() == ".yaml")
      names.push_back(std::filesystem::relative(e.path(), configs).generic_string());
  std::sort(names.begin(), names.end());
  return names;
}

class ShippedConfigIds : public ::testing::TestWithParam<std::string> {};

// Before ids had a letter, 1 in 2000 was all digits or digits-e-digits (transpose.yaml had one):
// a spreadsheet made a number of it, and --resume, collect and compare key on ids.
TEST_P(ShippedConfigIds, AreALetterAndSixteenHexDigits) {
  const auto ids = plan_of(source_dir() / "configs" / GetParam());
  EXPECT_FALSE(ids.empty());
  static const std::regex id("p[0-9a-f]{16}");
  for (const auto& i : ids) EXPECT_TRUE(std::regex_match(i, id)) << i;
}

INSTANTIATE_TEST_SUITE_P(Hostile, ShippedConfigIds, ::testing::ValuesIn(shipped_configs()),
                         [](const auto& p) {
                           std::string name;
                           for (char c : p.param) name += std::isalnum(c) ? c : '_';
                           return name;
                         });

// LibreOffice writes LF line ends; the strict reader wants RFC 4180's CRLF.
CsvTable parse_calc_csv(const std::filesystem::path& file) {
  std::string text;
  for (char c : read_text(file)) {
    if (c == '\r') continue;
    if (c == '\n') text += '\r';
    text += c;
  }
  return parse_csv(text);
}

// A run whose ids include digits-only hex: what pandas and a spreadsheet read back.
class IdReaders : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { run_ = new FinishedRun; }
  static void TearDownTestSuite() { delete run_; }
  static FinishedRun* run_;
  const TempDir* dir = &run_->dir;
};
FinishedRun* IdReaders::run_ = nullptr;

TEST_F(IdReaders, PandasReadsEveryIdAsText) {
  const auto out = *dir / "out";
  const ProcessResult r =
      run_process({"/usr/bin/python3", "-c",
                   "import sys, pandas as pd\n"
                   "d = sys.argv[1]\n"
                   "for df in (pd.read_csv(d + '/records.csv'), pd.read_json(d + '/records.jsonl', "
                   "lines=True)):\n"
                   "    assert df['point_id'].dtype == object, df['point_id'].dtype\n"
                   "    assert all(isinstance(v, str) and v.startswith('p') and len(v) == 17 for v "
                   "in df['point_id'])\n"
                   "print('ok')\n",
                   out.string()});
  if (r.exit_code != 0 && r.err.find("No module named 'pandas'") != std::string::npos)
    GTEST_SKIP() << "no pandas";
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "ok\n");
}

TEST_F(IdReaders, ASpreadsheetKeepsEveryIdAsText) {
  // LibreOffice Calc, headless: open records.csv as a user would and save what it read.
  const ProcessResult which = run_process({"/bin/sh", "-c", "command -v soffice"});
  if (which.exit_code != 0) GTEST_SKIP() << "no LibreOffice (soffice) on this machine";
  const std::string soffice = which.out.substr(0, which.out.find('\n'));
  const auto out = *dir / "out";
  const auto converted = *dir / "calc";
  std::filesystem::create_directories(converted);
  // A second format name (csv:Text - txt - csv (StarCalc)) writes back what the cells hold.
  const ProcessResult r = run_process(
      {soffice, "--headless", "-env:UserInstallation=file://" + (*dir / "profile").string(),
       "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1", "--outdir", converted.string(),
       (out / "records.csv").string()},
      180);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const CsvTable original = parse_csv(read_text(out / "records.csv"));
  const CsvTable calc = parse_calc_csv(converted / "records.csv");
  ASSERT_EQ(calc.rows.size(), original.rows.size());
  // Calc writes the cells it holds as text in quotes, numbers bare.
  const std::string exported = read_text(converted / "records.csv");
  for (std::size_t i = 0; i < original.rows.size(); ++i) {
    EXPECT_EQ(calc.at(i, "point_id"), original.at(i, "point_id"));
    EXPECT_NE(exported.find("\"" + original.at(i, "point_id") + "\""), std::string::npos)
        << original.at(i, "point_id") << " is not a text cell";
  }

  // The control: ids as earlier releases wrote them become numbers (this test can fail).
  write_text(*dir / "old.csv", "point_id\r\n5771271885670859\r\n3248900166281e89\r\n");
  const ProcessResult old = run_process(
      {soffice, "--headless", "-env:UserInstallation=file://" + (*dir / "profile").string(),
       "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1", "--outdir", converted.string(),
       (*dir / "old.csv").string()},
      180);
  ASSERT_EQ(old.exit_code, 0) << old.err;
  const std::string mangled = read_text(converted / "old.csv");
  EXPECT_EQ(mangled.find("\"5771271885670859\""), std::string::npos) << mangled;
  EXPECT_NE(mangled.find("3.248900166281E+101"), std::string::npos) << mangled;
}

// Every bad config of the corpus, pointed at a finished run's folder with --resume: refused
// (exit 2) without touching a byte of it.
class BadConfigIntoARun : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { run_ = new FinishedRun; }
  static void TearDownTestSuite() { delete run_; }
  static FinishedRun* run_;
  const TempDir* dir = &run_->dir;
};
FinishedRun* BadConfigIntoARun::run_ = nullptr;

std::vector<std::string> corpus() {
  std::vector<std::string> names;
  for (const auto& e :
       std::filesystem::directory_iterator(source_dir() / "tests" / "cli" / "bad_configs"))
    if (e.path().extension() == ".yaml") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST_P(BadConfigIntoARun, IsRefusedAndTheRunIsUntouched) {
  const auto out = *dir / "out";
  std::map<std::string, std::string> before;
  for (const auto& e : std::filesystem::directory_iterator(out))
    if (e.is_regular_file()) before[e.path().filename()] = read_text(e.path());
  const auto file = source_dir() / "tests" / "cli" / "bad_configs" / GetParam();
  const ProcessResult r = run({file.string(), "--out", out.string(), "--resume"}, 20);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(r.err.starts_with(file.string() + ":")) << r.err;
  std::map<std::string, std::string> after;
  for (const auto& e : std::filesystem::directory_iterator(out))
    if (e.is_regular_file()) after[e.path().filename()] = read_text(e.path());
  EXPECT_EQ(after, before);
}

INSTANTIATE_TEST_SUITE_P(Hostile, BadConfigIntoARun, ::testing::ValuesIn(corpus()),
                         [](const auto& p) {
                           std::string name;
                           for (char c : p.param) name += std::isalnum(c) ? c : '_';
                           return name;
                         });

}  // namespace
}  // namespace runner::hostile
