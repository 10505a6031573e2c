// `runner --version`, `runner list`, `runner validate` on the shipped configs, `--dry-run`.
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "runner/api/gpu/runtime_name.hpp"
#include "runner/api/registry.hpp"
#include "runner/spec/config_keys.hpp"
#include "tests/cli/child_process.hpp"
#include "tests/cli/results_dir.hpp"
#include "tests/unit/temp_dir.hpp"

namespace runner::cli_testing {
namespace {

using runner::testing::TempDir;

std::vector<std::filesystem::path> shipped_configs() {
  std::vector<std::filesystem::path> files;
  // configs/ and its folders (configs/tuning/ ...): every shipped config.
  for (const auto& e : std::filesystem::recursive_directory_iterator(source_dir() / "configs"))
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(Cli, Version) {
  const ProcessResult r = run_runner({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(std::regex_match(
      r.out, std::regex(R"(runner \d+\.\d+\.\d+ \(git \S+, .+, CUDA .+\)\nprefix: \S.*\n)")))
      << r.out;
  EXPECT_EQ(r.err, "");
}

// -V is --version, as in most GNU tools; the prefix line names the installed runner's files.
TEST(Cli, ShortVersionFlagAndPrefix) {
  const ProcessResult r = run_runner({"-V"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, run_runner({"--version"}).out);
  // The test binary runs from the build tree, whose share/runner/ mirrors an installed prefix.
  EXPECT_NE(r.out.find("prefix: " +
                       std::filesystem::path(runner_binary()).parent_path().parent_path().string()),
            std::string::npos)
      << r.out;
}

TEST(Cli, ColumnsPrintsTheTableAndTheReadmeShowsTheSame) {
  const ProcessResult md = run_runner({"columns"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  const std::string readme = read_text(source_dir() / "README.md");
  const auto begin = readme.find("<!-- columns:begin");
  const auto end = readme.find("<!-- columns:end -->");
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const auto first = readme.find('\n', begin) + 1;
  EXPECT_EQ(readme.substr(first, end - first), md.out)
      << "README.md's column table is stale: run scripts/update-columns-doc";
  // As JSON: exactly the file analysis/ reads.
  const ProcessResult json = run_runner({"columns", "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out),
            nlohmann::json::parse(read_text(source_dir() / "runner" / "results" / "columns.json")));
  const ProcessResult csv = run_runner({"columns", "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(parse_csv(csv.out).header,
            (std::vector<std::string>{"name", "type", "unit", "filled_by", "meaning"}));
  EXPECT_EQ(run_runner({"columns", "--format", "xml"}).exit_code, 2);
}

TEST(Cli, ListShowsEveryKernelAndVariantOfTheBinary) {
  const ProcessResult r = run_runner({"list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_TRUE(std::regex_search(
      lines[0], std::regex(R"(^kernel +variant +on +available +axes +description$)")))
      << lines[0];
  EXPECT_TRUE(lines.back().starts_with("GPU: ")) << lines.back();
  // The test links the same kernels as the binary: every variant is listed once, CPU ones as
  // available, with their kernel's axes.
  std::size_t variants = 0;
  for (const auto& k : Registry::instance().kernels()) {
    for (const auto& v : k.variants) {
      ++variants;
      int found = 0;
      for (const auto& line : lines) {
        std::istringstream words(line);
        std::string kernel, variant, on, available;
        words >> kernel >> variant >> on >> available;
        if (kernel != k.name || variant != v.name) continue;
        ++found;
        EXPECT_EQ(on, std::string(backend_name(v.backend))) << line;
        if (v.backend == Backend::cpu) {
          EXPECT_EQ(available, "yes") << line;
        }
        for (Axis a : k.axes)
          EXPECT_NE(line.find(std::string(axis_name(a))), std::string::npos) << line;
      }
      EXPECT_EQ(found, 1) << k.name << "/" << v.name;
    }
  }
  EXPECT_GE(variants, 4u);                // at least the CPU gemm variants
  EXPECT_EQ(lines.size(), variants + 3);  // header, variants, blank line, GPU line
}

TEST(Cli, ValidateEveryShippedConfig) {
  const auto configs = shipped_configs();
  if (configs.empty()) GTEST_SKIP() << "no configs/*.yaml yet";
  for (const auto& file : configs) {
    const ProcessResult r = run_runner({"validate", file.string()});
    EXPECT_EQ(r.exit_code, 0) << file << "\n" << r.err;
    EXPECT_EQ(r.err, "") << file;
    EXPECT_TRUE(std::regex_match(
        r.out, std::regex(std::regex_replace(file.string(), std::regex(R"([.^$|()\[\]{}*+?\\])"),
                                             R"(\$&)") +
                          R"(: ok, experiment '[A-Za-z0-9._-]+', [1-9]\d* points \(\d+ )" +
                          gpu::kRuntimeName + R"(, \d+ CPU\)\n)")))
        << r.out;
  }
}

TEST(Cli, ShippedConfigsDryRun) {
  const auto configs = shipped_configs();
  if (configs.empty()) GTEST_SKIP() << "no configs/*.yaml yet";
  for (const auto& file : configs) {
    TempDir dir;
    const ProcessResult r = run_runner({file.string(), "--dry-run", "--out", (dir / "x").string()});
    EXPECT_EQ(r.exit_code, 0) << file << "\n" << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "x")) << file;
  }
}

TEST(Cli, EveryKeyOfAConfigIsInTheConfigurationReference) {
  // The keys the reader accepts (runner/spec/config_keys.cpp): a top-level key has its row in the
  // table of top-level keys, a key of a section is named in that section's part of the page.
  const std::string doc = read_text(source_dir() / "docs" / "configuration.md");
  for (const auto& key : section_keys(""))
    EXPECT_NE(doc.find("| `" + key + "`"), std::string::npos) << key;
  for (const std::string_view section : {kRepeatSection, kVerifySection, kSlurmSection}) {
    const std::size_t begin = doc.find("\n## " + std::string(section));
    ASSERT_NE(begin, std::string::npos) << "no section " << section;
    const std::string part = doc.substr(begin, doc.find("\n## ", begin + 1) - begin);
    for (const auto& key : section_keys(section))
      EXPECT_NE(part.find("`" + key + "`"), std::string::npos) << section << "." << key;
  }
}

TEST(Cli, ExamplesOfTheConfigurationReferenceValidate) {
  // Complete examples (those that start with the schema comment) must stay true to the binary.
  const std::string doc = read_text(source_dir() / "docs" / "configuration.md");
  const std::string fence = "```yaml\n";
  int examples = 0;
  for (std::size_t at = doc.find(fence); at != std::string::npos; at = doc.find(fence, at + 1)) {
    const std::size_t begin = at + fence.size(), end = doc.find("```", begin);
    const std::string yaml = doc.substr(begin, end - begin);
    if (!yaml.starts_with("# yaml-language-server: $schema=schema.json")) continue;
    ++examples;
    TempDir dir;
    write_text(dir / "example.yaml", yaml);
    const ProcessResult r = run_runner({"validate", (dir / "example.yaml").string()});
    EXPECT_EQ(r.exit_code, 0) << yaml << r.err;
  }
  EXPECT_GE(examples, 3);
}

TEST(Cli, DryRunPrintsThePointsAndWritesNothing) {
  TempDir dir;
  write_text(dir / "c.yaml", R"(experiment: dry
kernel: gemm
baseline: omp_serial
sweeps:
  - {variant: omp_blocked, size: [8, 16], threads: [1, 2]}
)");
  // Run from an empty folder without --out: not even the default results/ folder may appear.
  std::filesystem::create_directories(dir / "cwd");
  const ProcessResult r =
      run_runner({(dir / "c.yaml").string(), "--dry-run"}, 30, {.cwd = dir / "cwd"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(std::filesystem::is_empty(dir / "cwd"));
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 7u) << r.out;
  const std::regex point(R"((p[0-9a-f]{16})  (gemm/\S+ .*))");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < 6; ++i) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(lines[i], m, point)) << lines[i];
    ids.insert(m[1]);
  }
  EXPECT_EQ(ids.size(), 6u);
  EXPECT_EQ(lines[0].substr(19), "gemm/omp_serial dtype=float size=8x8x8  (baseline)");
  EXPECT_EQ(lines[1].substr(19), "gemm/omp_blocked dtype=float size=8x8x8 threads=1");
  EXPECT_EQ(lines[3].substr(19), "gemm/omp_serial dtype=float size=16x16x16  (baseline)");
  EXPECT_EQ(lines[6], "6 points");
}

TEST(Cli, DryRunOfAShard) {
  TempDir dir;
  write_text(dir / "c.yaml",
             "experiment: dry\nkernel: gemm\nsweeps:\n  - {variant: omp_blocked, size: [8, 16, "
             "24], threads: [1, 2]}\n");
  std::size_t total = 0;
  for (int i = 0; i < 3; ++i) {
    const ProcessResult r =
        run_runner({(dir / "c.yaml").string(), "--dry-run", "--shard", std::to_string(i) + "/3"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto lines = lines_of(r.out);
    total += lines.size() - 1;
  }
  EXPECT_EQ(total, 6u);
  const ProcessResult bad = run_runner({(dir / "c.yaml").string(), "--dry-run", "--shard", "3/3"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--shard"), std::string::npos) << bad.err;
}

TEST(Cli, NoArgumentsPrintsUsage) {
  const ProcessResult r = run_runner({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("validate"), std::string::npos) << r.err;
}

TEST(Cli, UnknownOptionIsAUsageError) {
  const ProcessResult r = run_runner({"list", "--frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("frobnicate"), std::string::npos) << r.err;
}

TEST(Cli, AWordThatIsNeitherACommandNorAFileIsAMistypedCommand) {
  ProcessResult r = run_runner({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'frobnicate' is neither a command nor a config file"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("Commands: "), std::string::npos) << r.err;
  r = run_runner({"valdate", "configs/smoke.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean 'validate'?"), std::string::npos) << r.err;
  // A config file that does not exist is still named as such.
  r = run_runner({"missing.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing.yaml: no such file"), std::string::npos) << r.err;
}

TEST(Cli, UsageLinesNameTheCommandRunner) {
  const ProcessResult r = run_runner({"validate", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("Usage: runner validate [OPTIONS] config"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace runner::cli_testing
