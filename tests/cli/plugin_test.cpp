// A user's own kernels as plugins (docs/own-kernel.md), through the real binary: a variant file
// compiled by the runner from a folder outside the source tree, run beside the built-in variants,
// verified, recorded with its plugin; the cache; a new family; and every bad input of the issue
// (a missing file, a compile error, nothing registered, an unknown family, a name clash, a library
// of another build or none, a crash while loading, a crash, a hang and a wrong result while
// running, an edit between a run and its resume), each with its message and exit code and nothing
// lost or misattributed.
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "tests/cli/child_process.hpp"
#include "tests/cli/results_dir.hpp"
#include "tests/unit/temp_dir.hpp"

namespace runner::cli_testing {
namespace {

using runner::testing::TempDir;

// A CPU transpose variant whose run() is `body` (in, out, m, n in scope).
std::string transpose_plugin(const std::string& name, const std::string& body,
                             const std::string& extra = "") {
  return R"(#include <cstdint>
#include "kernels/transpose/transpose_cpu_workload.hpp"
#include "runner/api/registry.hpp"
#include "runner/api/variant.hpp"
)" + extra +
         R"(
namespace runner::kernels::transpose {
namespace {
template <typename T>
class Plugged final : public CpuTranspose<T> {
 public:
  using CpuTranspose<T>::CpuTranspose;
  void run() override {
    const std::int64_t m = this->p_.m, n = this->p_.n;
    const T* in = this->p_.input.data();
    T* out = this->out_.data();
    )" + body +
         R"(
  }
};
}  // namespace
RUNNER_FACTORY()" +
         name + R"(, by_dtype<Plugged>);
RUNNER_CPU_VARIANT(transpose, )" +
         name + R"(, {.axes = {Axis::threads}, .description = "test plugin"});
}  // namespace runner::kernels::transpose
)";
}

// A shared library of `source` built by hand (not by the runner), next to it: SOURCE.so.
ProcessResult build_by_hand(const std::filesystem::path& source) {
  const std::string cmd = "c++ -shared -fPIC '" + source.string() + "' -o '" +
                          source.parent_path().string() + "/" + source.stem().string() + ".so'";
  return run_process({"/bin/sh", "-c", cmd}, 60);
}

const char* kCorrect = R"(
#pragma omp parallel for
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) out[j * m + i] = in[i * n + j];)";

std::string config(const std::string& plugins, const std::string& variants,
                   const std::string& more = "") {
  return "experiment: plugged\nkernel: transpose\nplugins: [" + plugins +
         "]\nrepeat: {warmup: 1, min_samples: 3, max_samples: 3}\n" + more +
         "sweeps:\n  - {variant: [" + variants + "], size: [64, 33], threads: [1]}\n";
}

struct PluginRun {
  TempDir dir;
  SpawnOptions options;
  PluginRun() {
    options.env["RUNNER_PLUGIN_CACHE"] = (dir / "cache").string();
    std::filesystem::create_directories(dir / "lab");
  }
  ProcessResult runner(std::vector<std::string> args, double timeout_s = 120) {
    return run_runner(args, timeout_s, options);
  }
  ProcessResult run(const std::string& yaml, std::vector<std::string> extra = {}) {
    write_text(dir / "lab" / "study.yaml", yaml);
    std::vector<std::string> args = {(dir / "lab" / "study.yaml").string(), "--out",
                                     (dir / "out").string(), "-q", "--no-calibrate"};
    args.insert(args.end(), extra.begin(), extra.end());
    return runner(args);
  }
  std::vector<nlohmann::json> records() {
    return read_jsonl_strictly(dir / "out" / "records.jsonl").records;
  }
};

TEST(Plugin, AVariantFileRunsBesideTheBuiltInOnesVerifiedAndNamed) {
  PluginRun t;
  write_text(t.dir / "lab" / "my_rows.cpp", transpose_plugin("my_rows", kCorrect));
  const ProcessResult r = t.run(config("my_rows.cpp", "omp_naive, my_rows"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = t.records();
  ASSERT_EQ(records.size(), 4u);
  std::string label;
  for (const auto& rec : records) {
    EXPECT_EQ(rec["status"], "ok") << rec.dump();
    EXPECT_EQ(rec["verified"], true);
    if (rec["variant"] == "my_rows") {
      label = rec["plugin"].get<std::string>();
      EXPECT_TRUE(std::regex_match(label, std::regex("my_rows\\.cpp@[0-9a-f]{8}"))) << label;
      EXPECT_GT(rec["gbps"].get<double>(), 0);
    } else {
      EXPECT_EQ(rec["plugin"], "") << "a built-in variant is nobody's plugin";
    }
  }
  const nlohmann::json manifest = read_json(t.dir / "out" / "manifest.json");
  ASSERT_EQ(manifest["plugins"].size(), 1u);
  const auto& p = manifest["plugins"][0];
  EXPECT_EQ(p["label"], label);
  EXPECT_EQ(p["file"], "my_rows.cpp");
  EXPECT_TRUE(std::regex_match(p["content_hash"].get<std::string>(), std::regex("[0-9a-f]{32}")));
  EXPECT_EQ(p["content_hash"].get<std::string>().substr(0, 8), label.substr(label.size() - 8));
  EXPECT_NE(p["toolchain"].get<std::string>().find("-std=c++20"), std::string::npos);
  EXPECT_EQ(p["variants"], nlohmann::json({"transpose/my_rows"}));
  // The CSV has the column too, the same value.
  const CsvTable csv = parse_csv(read_text(t.dir / "out" / "records.csv"));
  bool seen = false;
  for (std::size_t i = 0; i < csv.rows.size(); ++i)
    if (csv.at(i, "variant") == "my_rows") seen = csv.at(i, "plugin") == label;
  EXPECT_TRUE(seen);
}

TEST(Plugin, TheCacheCompilesOnceAndAgainWhenAnIncludedHeaderChanges) {
  PluginRun t;
  write_text(t.dir / "lab" / "tuning.hpp", "constexpr int kBand = 4;\n");
  write_text(t.dir / "lab" / "banded.cpp",
             transpose_plugin("banded", std::string(kCorrect) + " (void)kBand;",
                              "#include \"tuning.hpp\"\n"));
  const std::string yaml = config("banded.cpp", "banded");
  write_text(t.dir / "lab" / "study.yaml", yaml);
  const std::vector<std::string> validate = {"validate", (t.dir / "lab" / "study.yaml").string()};
  const ProcessResult first = t.runner(validate);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.err.find("plugin banded.cpp: compiled in"), std::string::npos) << first.err;
  const ProcessResult second = t.runner(validate);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.err.find("plugin banded.cpp: unchanged, from the cache"), std::string::npos)
      << second.err;
  write_text(t.dir / "lab" / "tuning.hpp", "constexpr int kBand = 8;\n");
  const ProcessResult third = t.runner(validate);
  ASSERT_EQ(third.exit_code, 0) << third.err;
  EXPECT_NE(third.err.find("plugin banded.cpp: compiled in"), std::string::npos)
      << "an edited header compiles the plugin again: " << third.err;
}

// README's example variant, verbatim, is a plugin as it is (the reverse of the runner-test binary,
// which compiles the same file in-tree).
TEST(Plugin, TheReadmeExampleVariantBuildsUnchangedAsAPlugin) {
  PluginRun t;
  const ProcessResult r =
      t.runner({"list", "--plugin",
                (source_dir() / "tests" / "test_kernels" / "gemm_example.cpp").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 2u) << r.out;
  EXPECT_TRUE(lines[1].starts_with("gemm ")) << r.out;
  EXPECT_NE(lines[1].find("example_dot"), std::string::npos) << r.out;
  EXPECT_NE(lines[1].find("[plugin gemm_example.cpp@"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("omp_blocked"), std::string::npos) << "--plugin lists the plugin's only";
}

TEST(Plugin, ANewFamilyFromTwoPluginsRunsWithEveryMetric) {
  PluginRun t;
  const auto example = source_dir() / "examples" / "own-kernel";
  const ProcessResult r = t.run(
      "experiment: fam\nkernel: stencil2d\nplugins: [" +
      (example / "stencil/stencil2d.cpp").string() +
      "]\nbaseline: {variant: omp_serial}\nrepeat: {warmup: 1, min_samples: 3, max_samples: "
      "3}\nsweeps:\n  - {variant: [omp_serial, omp], size: [100, 67], threads: [1, 2], dtype: "
      "[float, double]}\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = t.records();
  ASSERT_EQ(records.size(), 12u);
  for (const auto& rec : records) {
    EXPECT_EQ(rec["kernel"], "stencil2d");
    EXPECT_EQ(rec["status"], "ok") << rec.dump();
    EXPECT_EQ(rec["verified"], true);
    EXPECT_GT(rec["gflops"].get<double>(), 0);
    EXPECT_GT(rec["gbps"].get<double>(), 0);
    EXPECT_GT(rec["verify_tolerance"].get<double>(), 0);
    if (rec["variant"] == "omp") {
      EXPECT_TRUE(rec["speedup"].is_number()) << rec.dump();
    }
    EXPECT_TRUE(rec["plugin"].get<std::string>().starts_with("stencil2d.cpp@"));
  }
}

// Each refused plugin: exit 2, the config's location of the entry, the file named, nothing
// written.
void expect_refused(PluginRun& t, const ProcessResult& r, const std::string& says) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("study.yaml:3:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(t.dir / "out")) << "nothing is written";
}

TEST(Plugin, AMissingFileIsALocatedError) {
  PluginRun t;
  expect_refused(t, t.run(config("nope.cu", "omp_naive")), "plugin nope.cu: no such file");
}

TEST(Plugin, AnUnknownKindIsALocatedError) {
  PluginRun t;
  write_text(t.dir / "lab" / "k.py", "print(1)\n");
  expect_refused(t, t.run(config("k.py", "omp_naive")), "'k.py' is not a plugin");
}

TEST(Plugin, ACompileErrorShowsTheUsersFileAndLine) {
  PluginRun t;
  write_text(t.dir / "lab" / "broken.cpp",
             transpose_plugin("broken", "    out[0] = undeclared_thing;"));
  const ProcessResult r = t.run(config("broken.cpp", "broken"));
  expect_refused(t, r, "plugin");
  EXPECT_NE(r.err.find("does not compile"), std::string::npos) << r.err;
  // The compiler's message, with the user's file and the line of the mistake (line 16).
  EXPECT_TRUE(
      std::regex_search(r.err, std::regex("broken\\.cpp:16:[0-9]+: error: .*undeclared_thing")))
      << r.err;
}

TEST(Plugin, AFileThatRegistersNothingIsRefused) {
  PluginRun t;
  write_text(t.dir / "lab" / "empty.cpp", "int unused_function() { return 1; }\n");
  expect_refused(t, t.run(config("empty.cpp", "omp_naive")), "registers no kernel and no variant");
}

TEST(Plugin, AVariantOfAnUnknownFamilyIsRefused) {
  PluginRun t;
  std::string text = transpose_plugin("lost", kCorrect);
  const std::string line = "RUNNER_CPU_VARIANT(transpose,";
  text.replace(text.find(line), line.size(), "RUNNER_CPU_VARIANT(transposse,");
  write_text(t.dir / "lab" / "lost.cpp", text);
  expect_refused(t, t.run(config("lost.cpp", "omp_naive")),
                 "names the kernel family 'transposse', which neither the runner nor a plugin");
}

TEST(Plugin, ANameOfTheRunnersOwnIsRefused) {
  PluginRun t;
  write_text(t.dir / "lab" / "clash.cpp", transpose_plugin("omp_blocked", kCorrect));
  expect_refused(t, t.run(config("clash.cpp", "omp_naive")),
                 "variant transpose/omp_blocked registered twice (built in and from clash.cpp@");
}

TEST(Plugin, TwoPluginsWithOneNameAreRefused) {
  PluginRun t;
  write_text(t.dir / "lab" / "a.cpp", transpose_plugin("twin", kCorrect));
  write_text(t.dir / "lab" / "b.cpp", transpose_plugin("twin", kCorrect));
  expect_refused(t, t.run(config("a.cpp, b.cpp", "twin")), "registered twice (from a.cpp@");
}

TEST(Plugin, ALibraryWithoutTheRunnersStampIsRefused) {
  PluginRun t;
  write_text(t.dir / "lab" / "plain.cpp", "extern \"C\" int plain() { return 1; }\n");
  const ProcessResult cc = build_by_hand(t.dir / "lab" / "plain.cpp");
  ASSERT_EQ(cc.exit_code, 0) << cc.err;
  expect_refused(t, t.run(config("plain.so", "omp_naive")), "carries no runner stamp");
}

TEST(Plugin, ALibraryOfAnotherRunnerBuildIsRefusedWithBothStamps) {
  PluginRun t;
  write_text(t.dir / "lab" / "other.cpp",
             "extern \"C\" const char runner_plugin_abi[] = \"0123456789abcdef\";\n");
  const ProcessResult cc = build_by_hand(t.dir / "lab" / "other.cpp");
  ASSERT_EQ(cc.exit_code, 0) << cc.err;
  const ProcessResult r = t.run(config("other.so", "omp_naive"));
  expect_refused(t, r,
                 "built for another build of the runner (its stamp 0123456789abcdef, this runner ");
}

TEST(Plugin, ALibraryThatCannotBeLoadedGivesTheLoadersMessage) {
  PluginRun t;
  write_text(t.dir / "lab" / "needs.cpp",
             "extern \"C\" int missing_everywhere(); extern \"C\" int f() { return "
             "missing_everywhere(); }\n"
             "extern \"C\" const char runner_plugin_abi[] = \"x\";\n");
  const ProcessResult cc = build_by_hand(t.dir / "lab" / "needs.cpp");
  ASSERT_EQ(cc.exit_code, 0) << cc.err;
  expect_refused(t, t.run(config("needs.so", "omp_naive")), "undefined symbol: missing_everywhere");
}

TEST(Plugin, APluginThatCrashesWhileLoadingLeavesTheRunnerUntouched) {
  PluginRun t;
  write_text(t.dir / "lab" / "boom.cpp",
             transpose_plugin("boom", kCorrect,
                              "#include <cstdlib>\nstatic int boom = (std::abort(), 0);\n"));
  expect_refused(t, t.run(config("boom.cpp", "boom")), "crashed while loading (killed by signal 6");
}

// Faults while running: each is a failed point with its cause, and the run goes on.
TEST(Plugin, ACrashAHangAndAWrongResultAreFailedPointsAndTheRunGoesOn) {
  PluginRun t;
  write_text(t.dir / "lab" / "segv.cpp",
             transpose_plugin("segv",
                              "    volatile int* p = nullptr; *p = 1; (void)in; (void)out; "
                              "(void)m; (void)n;"));
  write_text(t.dir / "lab" / "spin.cpp",
             transpose_plugin("spin",
                              "    for (volatile int i = 0;; i = i + 1) {} (void)in; "
                              "(void)out; (void)m; (void)n;"));
  write_text(t.dir / "lab" / "wrong.cpp",
             transpose_plugin("wrong", std::string(kCorrect) + "\n    out[1] += 1;"));
  const ProcessResult r = t.run(
      config("segv.cpp, spin.cpp, wrong.cpp", "segv, spin, wrong, omp_naive", "timeout_s: 3\n"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto records = t.records();
  ASSERT_EQ(records.size(), 8u) << "every point recorded";
  for (const auto& rec : records) {
    const std::string v = rec["variant"], msg = rec["message"];
    if (v == "omp_naive") {
      EXPECT_EQ(rec["status"], "ok") << rec.dump();
      continue;
    }
    EXPECT_EQ(rec["status"], "failed") << rec.dump();
    EXPECT_TRUE(rec["plugin"].get<std::string>().starts_with(v + ".cpp@")) << rec.dump();
    const std::map<std::string, std::string> cause = {
        {"segv", "SIGSEGV"}, {"spin", "timed out"}, {"wrong", "verification failed"}};
    EXPECT_NE(msg.find(cause.at(v)), std::string::npos) << msg;
  }
}

TEST(Plugin, AResumeRefusesAPluginEditedSinceTheRunBegan) {
  PluginRun t;
  write_text(t.dir / "lab" / "my_rows.cpp", transpose_plugin("my_rows", kCorrect));
  const std::string yaml = config("my_rows.cpp", "my_rows, omp_naive");
  ASSERT_EQ(t.run(yaml).exit_code, 0);
  const std::string before = read_text(t.dir / "out" / "records.jsonl");
  write_text(t.dir / "lab" / "my_rows.cpp",
             transpose_plugin("my_rows", std::string(kCorrect) + " // faster now"));
  const ProcessResult r = t.run(yaml, {"--resume"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("the plugin source changed since the run began: my_rows.cpp (content "),
            std::string::npos)
      << r.err;
  EXPECT_EQ(read_text(t.dir / "out" / "records.jsonl"), before) << "no record lost or rewritten";
  // Restored, the resume goes on.
  write_text(t.dir / "lab" / "my_rows.cpp", transpose_plugin("my_rows", kCorrect));
  EXPECT_EQ(t.run(yaml, {"--resume"}).exit_code, 0);
}

}  // namespace
}  // namespace runner::cli_testing
