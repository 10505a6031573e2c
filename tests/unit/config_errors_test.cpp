// Every mistake in a config is one ConfigError whose located() text is "FILE:LINE:COL: what".
// The messages are asserted whole: they are the user interface of the tool.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "runner/spec/config.hpp"
#include "runner/spec/config_error.hpp"
#include "tests/unit/fake_kernels.hpp"
#include "tests/unit/time_scale.hpp"

namespace runner {
namespace {

// The located message of the error parse_config throws for `yaml`, or "no error".
std::string error_of(const std::string& yaml) {
  try {
    testing::parse(yaml);
  } catch (const ConfigError& e) {
    return e.located();
  }
  return "no error";
}

struct BadConfig {
  const char* name;
  const char* yaml;
  const char* message;  // the whole located() text
  friend void PrintTo(const BadConfig& c, std::ostream* os) { *os << c.name; }
};

// A valid head that the cases extend, so that each case has one mistake.
#define HEAD "experiment: e\nkernel: gemm\n"

const BadConfig kBadConfigs[] = {
    {"UnknownTopLevelKeyWithHint", HEAD "sweeps:\n  - size: 8\nrepet: {warmup: 1}\n",
     "test.yaml:5:1: unknown key 'repet' in the config (did you mean 'repeat'?)"},
    {"UnknownTopLevelKeyWithoutHint", HEAD "sweeps:\n  - size: 8\ncolour: blue\n",
     "test.yaml:5:1: unknown key 'colour' in the config"},
    {"UnknownAxisInSweep", HEAD "sweeps:\n  - size: 8\n    thread: [1, 2]\n",
     "test.yaml:5:5: unknown axis 'thread' in sweeps[0] (did you mean 'threads'?)"},
    {"UnknownAxisInExclude", HEAD "sweeps:\n  - size: 8\nexclude:\n  - {sizes: 8}\n",
     "test.yaml:6:6: unknown axis 'sizes' in exclude[0] (did you mean 'size'?)"},
    {"UnknownAxisInBaseline",
     HEAD "baseline: {variant: omp_serial, treads: 1}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:33: unknown axis 'treads' in baseline (did you mean 'threads'?)"},
    {"UnknownRepeatKey", HEAD "repeat: {min_sample: 3}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:10: unknown key 'min_sample' in repeat (did you mean 'min_samples'?)"},
    {"UnknownVerifyKey", HEAD "verify: {sed: 1}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:10: unknown key 'sed' in verify (did you mean 'seed'?)"},
    {"UnknownSlurmKey", HEAD "slurm: {partiton: gpu}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:9: unknown key 'partiton' in slurm (did you mean 'partition'?)"},
    {"UnknownSizeDimension", HEAD "sweeps:\n  - size: {m: 4, n: 4, q: 4}\n",
     "test.yaml:4:24: unknown size dimension 'q' (expected m, n, k)"},
    {"UnknownDtype", HEAD "sweeps:\n  - dtype: [float, half]\n",
     "test.yaml:4:20: unknown dtype 'half' (expected float or double)"},

    {"ThreadsNotANumber", HEAD "sweeps:\n  - threads: [1, two]\n",
     "test.yaml:4:18: threads must be an integer, got 'two'"},
    {"ThreadsAFraction", HEAD "sweeps:\n  - threads: 1.5\n",
     "test.yaml:4:14: threads must be an integer, got '1.5'"},
    {"ThreadsZero", HEAD "sweeps:\n  - threads: 0\n",
     "test.yaml:4:14: threads must be in [1, 4096], got 0"},
    {"ThreadsHuge", HEAD "sweeps:\n  - threads: [1, 100000]\n",
     "test.yaml:4:18: threads must be in [1, 4096], got 100000"},
    {"NumberBeyondInt64", HEAD "sweeps:\n  - size: 99999999999999999999\n",
     "test.yaml:4:11: size '99999999999999999999' is out of range"},
    {"SizeZero", HEAD "sweeps:\n  - size: 0\n",
     "test.yaml:4:11: size must be in [1, 1099511627776], got 0"},
    {"SizeNegative", HEAD "sweeps:\n  - size: [8, -8]\n",
     "test.yaml:4:15: size must be in [1, 1099511627776], got -8"},
    {"SizeDimensionZero", HEAD "sweeps:\n  - size: {m: 4, n: 0, k: 4}\n",
     "test.yaml:4:21: size.n must be in [1, 1099511627776], got 0"},
    {"SizeWithoutN", HEAD "sweeps:\n  - size: {m: 4}\n",
     "test.yaml:4:11: size needs at least m and n"},
    {"SizeAString", HEAD "sweeps:\n  - size: big\n",
     "test.yaml:4:11: size must be an integer, got 'big'"},
    {"SizeDimensionAList", HEAD "sweeps:\n  - size: {m: [4], n: 4}\n",
     "test.yaml:4:15: size.m must be a single value"},
    {"KernelSizeEven", HEAD "sweeps:\n  - kernel_size: [3, 4]\n",
     "test.yaml:4:22: kernel_size must be odd, got 4"},
    {"KernelSizeTooLarge", HEAD "sweeps:\n  - kernel_size: 33\n",
     "test.yaml:4:18: kernel_size must be in [1, 31], got 33"},
    {"BlockZero", HEAD "sweeps:\n  - block: [0, 16]\n",
     "test.yaml:4:13: block x must be in [1, 1048576], got 0"},
    {"BlockThreeDimensions", HEAD "sweeps:\n  - block: [[1, 2, 3]]\n",
     "test.yaml:4:13: block must be [x] or [x, y]"},
    {"BlockBadString", HEAD "sweeps:\n  - block: 32x\n",
     "test.yaml:4:12: block must look like [32, 8] or 32x8, got '32x'"},
    {"BlockAMapping", HEAD "sweeps:\n  - block: {x: 32}\n", "test.yaml:4:12: block must be [x, y]"},
    {"GridNegative", HEAD "sweeps:\n  - grid: -1\n",
     "test.yaml:4:11: grid must be in [0, 2147483648], got -1"},
    {"PrintNotBoolean", HEAD "sweeps:\n  - print: maybe\n",
     "test.yaml:4:12: print must be true or false, got 'maybe'"},
    {"KernelEmpty", "experiment: e\nkernel: ''\nsweeps:\n  - size: 8\n",
     "test.yaml:2:9: kernel must not be empty"},
    {"ExperimentAList", "experiment: [a, b]\nkernel: gemm\nsweeps:\n  - size: 8\n",
     "test.yaml:1:13: experiment must be a single value"},
    {"ExperimentWithSlash", "experiment: a/b\nkernel: gemm\nsweeps:\n  - size: 8\n",
     "test.yaml:1:13: experiment 'a/b' may hold only letters, digits, '-', '_' and '.' (it names a "
     "folder)"},
    {"ExperimentHidden", "experiment: .hidden\nkernel: gemm\nsweeps:\n  - size: 8\n",
     "test.yaml:1:13: experiment needs a name"},
    {"RepeatNotAMapping", HEAD "repeat: 5\nsweeps:\n  - size: 8\n",
     "test.yaml:3:9: repeat must be a mapping (key: value)"},
    {"RepeatMaxBelowMin",
     HEAD "repeat:\n  min_samples: 10\n  max_samples: 5\nsweeps:\n  - size: 8\n",
     "test.yaml:4:3: repeat.max_samples (5) is below repeat.min_samples (10)"},
    {"RepeatRsdAboveOne", HEAD "repeat: {target_rsd: 2}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:22: repeat.target_rsd must be in [0, 1], got 2"},
    {"RepeatSecondsNotANumber", HEAD "repeat: {max_seconds: .nan}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:23: repeat.max_seconds must be a number, got '.nan'"},
    {"MeasureUnknown", HEAD "measure: warm\nsweeps:\n  - size: 8\n",
     "test.yaml:3:10: measure must be cold or hot, got 'warm'"},
    {"MinSecondsNegative", HEAD "repeat: {min_seconds: -1}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:23: repeat.min_seconds must be in [0, 86400], got -1"},
    {"TimeoutTooSmall", HEAD "timeout_s: 0\nsweeps:\n  - size: 8\n",
     "test.yaml:3:12: timeout_s must be in [1, 604800], got 0"},
    {"SeedNegative", HEAD "verify: {seed: -1}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:16: verify.seed must be in [0, 9223372036854775807], got -1"},
    {"SlurmCpusZero", HEAD "slurm: {cpus: 0}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:15: slurm.cpus must be in [1, 4096], got 0"},
    {"SlurmExtraAMapping", HEAD "slurm: {extra: {a: b}}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:16: slurm.extra must be a list of sbatch options"},
    {"SlurmSetupNotAList", HEAD "slurm: {setup: module load cuda}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:16: slurm.setup must be a list of shell lines, e.g. [\"module load "
     "cuda/12.4\"]"},
    {"SlurmSetupLineAMapping", HEAD "slurm:\n  setup:\n    - echo a: b\nsweeps:\n  - size: 8\n",
     "test.yaml:5:7: slurm.setup[0] must be one line of text (YAML read it as a mapping: put the "
     "line in quotes)"},
    {"SlurmSetupLineAList", HEAD "slurm: {setup: [ok, [a, b]]}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:21: slurm.setup[1] must be one line of text"},
    {"SlurmSetupLineWithANewline",
     HEAD "slurm: {setup: [\"module load a\\nmodule load b\"]}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:17: slurm.setup[0] holds a line break: give each command as its own entry of "
     "the list (a YAML block scalar | or > adds line breaks)"},
    {"SlurmSetupBlockScalar",
     HEAD "slurm:\n  setup:\n    - ok\n    - |\n      module load a\n      module load b\n"
          "sweeps:\n  - size: 8\n",
     "test.yaml:6:7: slurm.setup[1] holds a line break: give each command as its own entry of "
     "the list (a YAML block scalar | or > adds line breaks)"},
    {"SlurmSetupLineWithANul", HEAD "slurm: {setup: [\"module\\0load\"]}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:17: slurm.setup[0] holds a NUL byte: a setup line is one line of shell text"},
    {"SlurmMemInGibibytes", HEAD "slurm: {mem: 16GiB}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:14: slurm.mem: '16GiB' is not a memory size: a whole number of megabytes, or "
     "with a unit K, M, G or T (16G, 4000M, 0 for all of the node's memory)"},
    {"SlurmExcludeNotAHostlist", HEAD "slurm: {exclude: \"node[01-03,\"}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:18: slurm.exclude: 'node[01-03,' is not a Slurm hostlist (a '[' without its "
     "']'): node names and ranges separated by commas, e.g. node[01-03],gpu7"},
    {"BaselineWithoutVariant", HEAD "baseline: {threads: 1}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:11: baseline needs a variant, e.g. baseline: {variant: omp_serial}"},
    {"BaselineNamesAKernel",
     HEAD "baseline: {variant: omp_serial, kernel: gemm}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:33: baseline cannot name a kernel: it applies to each kernel of the config"},

    {"ThreadsQuoted", HEAD "sweeps:\n  - threads: \"4\"\n",
     "test.yaml:4:14: threads must be an integer, got the text \"4\" (write numbers without "
     "quotes)"},
    {"TimeoutQuoted", HEAD "timeout_s: '60'\nsweeps:\n  - size: 8\n",
     "test.yaml:3:12: timeout_s must be a number, got the text \"60\" (write numbers without "
     "quotes)"},
    {"PrintOneIsNotABoolean", "experiment: e\nkernel: hello\nsweeps:\n  - print: 1\n",
     "test.yaml:4:12: print must be true or false, got '1'"},

    // Ranges (runner/spec/integer_range.hpp).
    {"Pow2BoundNotAPowerOfTwo", HEAD "sweeps:\n  - size: {pow2: [100, 1024]}\n",
     "test.yaml:4:19: pow2 bounds of size must be powers of two, got 100"},
    {"Pow2GoesDown", HEAD "sweeps:\n  - size: {pow2: [1024, 128]}\n",
     "test.yaml:4:18: pow2 of size goes down: 1024 is above 128 (write [lo, hi])"},
    {"Pow2OneBound", HEAD "sweeps:\n  - size: {pow2: [128]}\n",
     "test.yaml:4:18: pow2 of size takes [lo, hi], two powers of two, e.g. {pow2: [128, 8192]}"},
    {"Pow2BeyondTheAxis", HEAD "sweeps:\n  - threads: {pow2: [1, 8192]}\n",
     "test.yaml:4:25: threads must be in [1, 4096], got 8192"},
    {"Pow2NotAnInteger", HEAD "sweeps:\n  - size: {pow2: [128, big]}\n",
     "test.yaml:4:24: size pow2 bound must be an integer, got 'big'"},
    {"RangeStepZero", HEAD "sweeps:\n  - size: {range: [1024, 9216, 0]}\n",
     "test.yaml:4:32: range step of size must be at least 1, got 0"},
    {"RangeStepNegative", HEAD "sweeps:\n  - size: {range: [1024, 9216, -1024]}\n",
     "test.yaml:4:32: range step of size must be at least 1, got -1024"},
    {"RangeGoesDown", HEAD "sweeps:\n  - size: {range: [9216, 1024, 1024]}\n",
     "test.yaml:4:19: range of size goes down: start 9216 is above stop 1024"},
    {"RangeNeverReachesItsStop", HEAD "sweeps:\n  - size: {range: [1024, 9000, 1024]}\n",
     "test.yaml:4:26: range of size never reaches its stop 9000: 1024 + a multiple of 1024 (the "
     "last value would be 8192)"},
    {"RangeTooManyValues", HEAD "sweeps:\n  - size: {range: [1, 1000000]}\n",
     "test.yaml:4:19: range of size has 1000000 values; at most 100000 (a missing step?)"},
    {"RangeNotAnInteger", HEAD "sweeps:\n  - threads: {range: [1, 8.5]}\n",
     "test.yaml:4:26: threads range stop must be an integer, got '8.5'"},
    {"RangeOfOneNumber", HEAD "sweeps:\n  - size: {range: 1024}\n",
     "test.yaml:4:19: range of size takes [start, stop] or [start, stop, step] (stop included), "
     "e.g. {range: [1024, 9216, 1024]}"},
    {"RangeWithAnEvenKernelSize", HEAD "sweeps:\n  - kernel_size: {range: [3, 9]}\n",
     "test.yaml:4:26: kernel_size must be odd, got 4 (a value of this range)"},
    {"RangeUnknownKind", HEAD "sweeps:\n  - size: {pow3: [128, 1024]}\n",
     "test.yaml:4:12: unknown range 'pow3' for size (did you mean 'pow2'?): a range is "
     "{pow2: [lo, hi]} or {range: [start, stop, step]}"},
    {"RangeUnknownKindInAList", HEAD "sweeps:\n  - threads: [1, {step: [2, 8]}]\n",
     "test.yaml:4:19: unknown range 'step' for threads: a range is {pow2: [lo, hi]} or "
     "{range: [start, stop, step]}"},
    {"RangeMixesPow2AndRange", HEAD "sweeps:\n  - size: {pow2: [128, 1024], range: [1, 2]}\n",
     "test.yaml:4:31: a range of size is either pow2 or range, not both: write two items of a "
     "list"},
    {"RangeOfBlocks", HEAD "sweeps:\n  - block: {pow2: [32, 1024]}\n",
     "test.yaml:4:12: axis 'block' takes no ranges (ranges are for size, threads, kernel_size and "
     "grid): list the shapes, [[32, 8], [64, 4]]"},
    {"RangeOfDtypes", HEAD "sweeps:\n  - dtype: [float, {range: [1, 2]}]\n",
     "test.yaml:4:20: axis 'dtype' takes no ranges (ranges are for size, threads, kernel_size and "
     "grid)"},
    {"RangeAsATopLevelDefault", HEAD "threads: {pow2: [1, 4]}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:10: top-level 'threads' is a default and takes one value; put ranges in sweeps"},
    {"RangeInABaseline",
     HEAD "baseline: {variant: omp_serial, threads: {pow2: [1, 4]}}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:42: baseline takes one value of 'threads', not a range"},

    {"DuplicateTopLevelKey", HEAD "sweeps:\n  - size: 8\nkernel: gemm\n",
     "test.yaml:5:1: duplicate key 'kernel' in the config"},
    {"DuplicateAxisInSweep", HEAD "sweeps:\n  - size: 8\n    size: 16\n",
     "test.yaml:5:5: duplicate key 'size' in sweeps[0]"},
    {"DuplicateRepeatKey", HEAD "repeat: {warmup: 1, warmup: 2}\nsweeps:\n  - size: 8\n",
     "test.yaml:3:21: duplicate key 'warmup' in repeat"},
    {"EmptyList", HEAD "sweeps:\n  - size: 8\n    threads: []\n",
     "test.yaml:5:14: axis 'threads' has an empty list of values"},
    {"AxisWithoutValue", HEAD "sweeps:\n  - size:\n  - threads: 2\n",
     "test.yaml:4:5: 'size' in sweeps[0] has no value"},
    {"KeyWithoutValue", "experiment: e\nkernel:\nsweeps:\n  - size: 8\n",
     "test.yaml:2:1: 'kernel' in the config has no value"},
    {"RepeatKeyWithoutValue", HEAD "repeat:\n  warmup:\n  min_samples: 3\nsweeps:\n  - size: 8\n",
     "test.yaml:4:3: 'warmup' in repeat has no value"},
    {"EmptySweeps", HEAD "sweeps: []\n", "test.yaml:3:9: sweeps is empty: nothing to run"},
    {"EmptySweep", HEAD "sweeps:\n  - {}\n", "test.yaml:4:5: sweeps[0] is empty"},
    {"SweepsAMapping", HEAD "sweeps: {size: 8}\n",
     "test.yaml:3:9: sweeps must be a list of mappings (axis: [values])"},
    {"SweepAList", HEAD "sweeps:\n  - [8, 16]\n",
     "test.yaml:4:5: sweeps[0] must be a mapping (key: value)"},
    {"ExcludeAMapping", HEAD "sweeps:\n  - size: 8\nexclude: {size: 8}\n",
     "test.yaml:5:10: exclude must be a list of mappings (axis: value or [values])"},
    {"TopLevelAxisGivenAList", HEAD "threads: [1, 2]\nsweeps:\n  - size: 8\n",
     "test.yaml:3:10: top-level 'threads' is a default and takes one value; put lists in sweeps"},
    {"TopLevelBlockList", HEAD "block: [\"32x8\", \"16x16\"]\nsweeps:\n  - size: 8\n",
     "test.yaml:3:8: top-level 'block' is a default and takes one value; put lists in sweeps"},
    {"KeyIsAList", HEAD "sweeps:\n  - ? [size, threads]\n    : [8, 2]\n",
     "test.yaml:4:7: keys of sweeps[0] must be names"},
    {"KeyIsAMapping", HEAD "? {a: 1}\n: 2\nsweeps:\n  - size: 8\n",
     "test.yaml:3:3: keys of the config must be names"},
    {"KeyIsNull", HEAD "sweeps:\n  - size: 8\n~: 1\n",
     "test.yaml:5:1: keys of the config must be names"},
    {"MissingExperiment", "kernel: gemm\nsweeps:\n  - size: 8\n",
     "test.yaml:1:1: missing 'experiment: NAME'"},
    {"MissingSweeps", HEAD, "test.yaml:1:1: missing 'sweeps:' (a list of axis: [values] mappings)"},
    {"TopLevelList", "- experiment: e\n- kernel: gemm\n",
     "test.yaml:1:1: a config must be a mapping with experiment, kernel and sweeps"},
    {"TopLevelScalar", "just some words\n",
     "test.yaml:1:1: a config must be a mapping with experiment, kernel and sweeps"},
    {"EmptyText", "",
     "test.yaml:1:1: a config must be a mapping with experiment, kernel and sweeps"},
    {"OnlyComments", "# nothing here\n",
     "test.yaml:1:1: a config must be a mapping with experiment, kernel and sweeps"},
    {"NotUtf8", "experiment: caf\xe9\nkernel: gemm\n",
     "test.yaml:1:16: the file is not valid UTF-8 text"},
    {"NotUtf8OnALaterLine", HEAD "# \xc3\xa9t\xc3\xa9 ok\n  \xff\n",
     "test.yaml:4:3: the file is not valid UTF-8 text"},
    {"TruncatedUtf8", HEAD "# \xe2\x82", "test.yaml:3:3: the file is not valid UTF-8 text"},
};

class BadConfigTest : public ::testing::TestWithParam<BadConfig> {};

TEST_P(BadConfigTest, IsRejectedWithItsLocation) {
  EXPECT_EQ(error_of(GetParam().yaml), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(Config, BadConfigTest, ::testing::ValuesIn(kBadConfigs),
                         [](const auto& p) { return std::string(p.param.name); });

// yaml-cpp's own wording may change between releases; the location and the prefix may not.
TEST(ConfigErrors, YamlSyntaxErrorIsLocated) {
  const std::string unclosed = error_of(HEAD "sweeps:\n  - size: [8, 16\n");
  EXPECT_TRUE(unclosed.starts_with("test.yaml:5:1: YAML syntax error: ")) << unclosed;
  const std::string map_in_a_value =
      error_of("experiment: e\nkernel: gemm: x\nsweeps:\n  - size: 8\n");
  EXPECT_TRUE(map_in_a_value.starts_with("test.yaml:2:13: YAML syntax error: ")) << map_in_a_value;
  const std::string undefined_alias = error_of(HEAD "sweeps:\n  - size: *nope\n");
  EXPECT_TRUE(undefined_alias.starts_with("test.yaml:4:11: YAML syntax error: "))
      << undefined_alias;
}

TEST(ConfigErrors, TabIndentationIsNamed) {
  // yaml-cpp alone says "illegal block entry" here.
  EXPECT_EQ(error_of(HEAD "sweeps:\n\t- size: 8\n"),
            "test.yaml:4:1: YAML syntax error: tab in indentation (YAML indents with spaces only)");
  EXPECT_EQ(error_of(HEAD "sweeps:\n  - size: 8\n  \tthreads: 2\n"),
            "test.yaml:5:3: YAML syntax error: tab in indentation (YAML indents with spaces only)");
}

TEST(ConfigErrors, TabsBetweenTokensAreFine) {
  EXPECT_EQ(error_of("experiment:\te\nkernel: gemm\nsweeps:\n  - size:\t8\n"), "no error");
}

TEST(ConfigErrors, AliasBombIsRejectedQuickly) {
  // "Billion laughs": nine levels of nine aliases each, 9^9 = 387 million strings once expanded.
  std::string yaml = "experiment: e\nkernel: gemm\na0: &a0 [lol]\n";
  for (int level = 1; level <= 9; ++level) {
    yaml += "a" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
    for (int i = 0; i < 9; ++i) yaml += (i ? ", *a" : "*a") + std::to_string(level - 1);
    yaml += "]\n";
  }
  yaml += "sweeps:\n  - size: 8\n";
  const auto t0 = std::chrono::steady_clock::now();
  const std::string message = error_of(yaml);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(message.starts_with("test.yaml:"));
  EXPECT_NE(message.find(": the config expands to more than 100000 values (aliases?)"),
            std::string::npos)
      << message;
  EXPECT_LT(seconds, 1.0 * testing::kTimeScale);
}

TEST(ConfigErrors, AnAliasInsideItsOwnAnchorIsAnError) {
  // A cycle: walking it recursively overflowed the stack (found by tests/fuzz).
  EXPECT_EQ(error_of(HEAD "loop: &loop [x, *loop]\nsweeps:\n  - size: 8\n"),
            "test.yaml:3:14: the config nests deeper than 64 levels (an alias inside its own "
            "anchor?)");
  EXPECT_EQ(error_of(HEAD "sweeps: &s\n  - size: 8\n    more: *s\n"),
            "test.yaml:4:11: the config nests deeper than 64 levels (an alias inside its own "
            "anchor?)");
}

TEST(ConfigErrors, SixtyFourLevelsOfNestingAreFine) {
  const std::string deep = std::string(60, '[') + "1" + std::string(60, ']');
  EXPECT_EQ(error_of(HEAD "description: x\nslurm: {extra: " + deep + "}\nsweeps:\n  - size: 8\n"),
            "test.yaml:4:17: slurm.extra must be a single value");
}

TEST(ConfigErrors, ADeeplyNestedDocumentIsAnError) {
  const std::string yaml =
      HEAD "sweeps: " + std::string(100000, '[') + std::string(100000, ']') + "\n";
  const std::string message = error_of(yaml);
  EXPECT_TRUE(message.starts_with("test.yaml:3:")) << message.substr(0, 200);
}

class ConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("runner_config_errors_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::string load_error(const std::filesystem::path& file) {
    try {
      load_config(file);
    } catch (const ConfigError& e) {
      return e.located();
    }
    return "no error";
  }
  std::filesystem::path dir_;
};

TEST_F(ConfigFileTest, ADirectoryIsNotAConfig) {
  EXPECT_EQ(load_error(dir_), dir_.string() + ": is a directory, not a config file");
}

TEST_F(ConfigFileTest, AMissingFile) {
  EXPECT_EQ(load_error(dir_ / "absent.yaml"), (dir_ / "absent.yaml").string() + ": no such file");
}

TEST_F(ConfigFileTest, AFifoIsNotARegularFile) {
  const auto fifo = dir_ / "pipe.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(load_error(fifo), fifo.string() + ": is not a regular file");
}

TEST_F(ConfigFileTest, AHugeFileIsRejectedWithoutReadingIt) {
  // 100 MB, sparse: rejected from its size alone. Reading it would also take far longer than the
  // limit below on a slow disk, and parse 100 MB of YAML.
  const auto file = dir_ / "huge.yaml";
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, 100 * 1000 * 1000), 0);
  ::close(fd);
  const auto t0 = std::chrono::steady_clock::now();
  const std::string message = load_error(file);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(message, file.string() + ": is 100000000 bytes; a config may be at most 1048576 bytes");
  EXPECT_LT(seconds, 0.1 * testing::kTimeScale);
}

TEST_F(ConfigFileTest, ErrorsNameTheFileAsGiven) {
  const auto file = dir_ / "bad.yaml";
  std::ofstream(file) << "experiment: e\nkernel: gemm\nsweeps:\n  - threads: 0\n";
  EXPECT_EQ(load_error(file), file.string() + ":4:14: threads must be in [1, 4096], got 0");
}

TEST(ConfigError, LocatedIsOneLineWhateverTheConfigHolds) {
  EXPECT_EQ(error_of(HEAD "sweeps:\n  - size: 8\n\"thr\\neads\\e[31m\": 1\n"),
            "test.yaml:5:1: unknown key 'thr\\neads\\x1b[31m' in the config");
  EXPECT_EQ(ConfigError("a\tb.yaml", 1, 2, "x\ry").located(), "a\\tb.yaml:1:2: x\\ry");
}

TEST(ConfigError, LocatedWithoutALine) {
  EXPECT_EQ(ConfigError("a.yaml", 0, 0, "no such file").located(), "a.yaml: no such file");
  EXPECT_EQ(ConfigError("a.yaml", 3, 7, "bad").located(), "a.yaml:3:7: bad");
}

}  // namespace
}  // namespace runner
