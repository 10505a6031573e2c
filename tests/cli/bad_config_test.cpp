// Every file of tests/cli/bad_configs/ must be refused by `runner validate F` and `runner F`:
// exit code 2, exactly one line on stderr that starts with the file name and holds the text the
// file's first line announces ("# expect: TEXT"), fast, and no results directory created.
// A few broken inputs cannot be committed (a directory, a 100 MB file, an empty file); they are
// made here.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include <gtest/gtest.h>

#include "tests/cli/child_process.hpp"
#include "tests/cli/results_dir.hpp"
#include "tests/unit/temp_dir.hpp"

namespace runner::cli_testing {
namespace {

using runner::testing::TempDir;

std::filesystem::path corpus_dir() {
  return source_dir() / "tests" / "cli" / "bad_configs";
}

std::vector<std::string> corpus_files() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(corpus_dir()))
    if (e.path().extension() == ".yaml") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string expectation_of(const std::filesystem::path& file) {
  const std::string text = read_text(file);
  const std::string prefix = "# expect: ";
  if (!text.starts_with(prefix)) return "";
  return text.substr(prefix.size(), text.find('\n') - prefix.size());
}

// Runs both commands on `file` and checks the contract; `expected` must occur in the message.
void expect_refused(const std::filesystem::path& file, const std::string& expected) {
  TempDir dir;
  const auto out = dir / "x";
  const std::vector<std::vector<std::string>> commands = {
      {"validate", file.string()},
      {file.string(), "--out", out.string()},
      {"run", file.string(), "--out", out.string(), "--dry-run"},
  };
  for (const auto& args : commands) {
    SCOPED_TRACE(args[0] + " " + args[1]);
    const ProcessResult r = run_runner(args, 10, {.cwd = dir.path()});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_LT(r.seconds, 5.0);
    EXPECT_EQ(r.out, "");
    const auto lines = lines_of(r.err);
    ASSERT_EQ(lines.size(), 1u) << r.err;
    EXPECT_TRUE(r.err.ends_with("\n"));
    EXPECT_TRUE(lines[0].starts_with(file.string() + ":")) << lines[0];
    EXPECT_NE(lines[0].find(expected), std::string::npos)
        << "expected: " << expected << "\nactual:   " << lines[0];
    EXPECT_FALSE(std::filesystem::exists(out));
    // Nothing else appeared either (no default results/ folder).
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  }
}

class BadConfigFile : public ::testing::TestWithParam<std::string> {};

TEST_P(BadConfigFile, IsRefusedWithOneLocatedLine) {
  const auto file = corpus_dir() / GetParam();
  const std::string expected = expectation_of(file);
  ASSERT_FALSE(expected.empty()) << file << " lacks its '# expect: ' first line";
  expect_refused(file, expected);
}

std::string test_name(const std::string& file) {
  std::string name = file.substr(0, file.rfind('.'));
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
      '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cli, BadConfigFile, ::testing::ValuesIn(corpus_files()),
                         [](const auto& p) { return test_name(p.param); });

TEST(BadConfigCorpus, IsLargeAndNumbered) {
  const auto files = corpus_files();
  EXPECT_GE(files.size(), 45u);
  for (const auto& f : files)
    EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(f[0])) && f[2] == '_') << f;
}

TEST(GeneratedBadConfig, ADirectory) {
  TempDir dir;
  std::filesystem::create_directories(dir / "looks_like.yaml");
  expect_refused(dir / "looks_like.yaml", "is a directory, not a config file");
}

TEST(GeneratedBadConfig, AMissingFile) {
  TempDir dir;
  expect_refused(dir / "absent.yaml", "no such file");
}

TEST(GeneratedBadConfig, AnEmptyFile) {
  TempDir dir;
  write_text(dir / "empty.yaml", "");
  expect_refused(dir / "empty.yaml",
                 ":1:1: a config must be a mapping with experiment, kernel and sweeps");
}

TEST(GeneratedBadConfig, A100MegabyteFile) {
  TempDir dir;
  // Real bytes, not a sparse file: a valid start, then 100 MB of comment lines.
  const auto file = dir / "huge.yaml";
  {
    std::string head = "experiment: huge\nkernel: gemm\nsweeps:\n  - size: 8\n";
    std::string chunk;
    for (int i = 0; i < 1024 * 16; ++i)
      chunk += "# padding padding padding padding padding padding pad\n";
    std::FILE* f = std::fopen(file.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(head.data(), 1, head.size(), f);
    std::size_t written = head.size();
    while (written < 100u * 1000 * 1000) written += std::fwrite(chunk.data(), 1, chunk.size(), f);
    std::fclose(f);
  }
  expect_refused(file, "bytes; a config may be at most 1048576 bytes");
}

TEST(GeneratedBadConfig, NonUtf8BytesAfterAValidStart) {
  TempDir dir;
  write_text(dir / "latin1.yaml",
             "experiment: bad\nkernel: gemm\nsweeps:\n  - size: 8\n# na\xefve\n");
  expect_refused(dir / "latin1.yaml", ":5:5: the file is not valid UTF-8 text");
}

}  // namespace
}  // namespace runner::cli_testing
