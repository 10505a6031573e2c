// parse_config: every key of a config lands in ExperimentSpec, with the documented defaults.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <gtest/gtest.h>

#include "runner/spec/config.hpp"
#include "tests/unit/fake_kernels.hpp"

namespace runner {
namespace {

using testing::parse;

const LocatedValue& sweep_value(const ExperimentSpec& spec, std::size_t sweep, Axis axis,
                                std::size_t index) {
  for (const auto& [a, values] : spec.sweeps.at(sweep).axes)
    if (a == axis) return values.at(index);
  throw std::out_of_range("axis not in sweep");
}

std::size_t sweep_count(const ExperimentSpec& spec, std::size_t sweep, Axis axis) {
  for (const auto& [a, values] : spec.sweeps.at(sweep).axes)
    if (a == axis) return values.size();
  return 0;
}

TEST(Config, EveryKeyIsRead) {
  const std::string text = R"(experiment: full_example
description: every key once
kernel: gemm
variant: omp_blocked
dtype: double
block: [32, 8]
threads: 4
kernel_size: 5
grid: 7
print: yes
repeat:
  warmup: 3
  min_samples: 7
  max_samples: 9
  target_rsd: 0.05
  min_seconds: 0.25
  max_seconds: 1.5
measure: cold
baseline: {variant: omp_serial, threads: 1}
verify: {seed: 1234}
timeout_s: 30
sweeps:
  - size: [64, 128]
    threads: [1, 2]
exclude:
  - {size: 128, threads: 2}
slurm:
  partition: gpu
  account: proj42
  qos: normal
  time: "00:30:00"
  gres: "gpu:1"
  constraint: h100
  cpus: 16
  throttle: 4
  extra: ["--exclusive", "--mem=0"]
  mem: 16G
  exclude: node[01-03],gpu7
  setup:
    - module load cuda/12.4
    - source ~/venv/bin/activate
    - 'echo "a: b" $HOME'
)";
  const ExperimentSpec spec = parse(text);
  EXPECT_EQ(spec.experiment, "full_example");
  EXPECT_EQ(spec.file, "test.yaml");
  EXPECT_EQ(spec.text, text);

  ASSERT_EQ(spec.defaults.size(), 8u);
  EXPECT_EQ(std::get<std::string>(spec.defaults.at(Axis::kernel).value), "gemm");
  EXPECT_EQ(std::get<std::string>(spec.defaults.at(Axis::variant).value), "omp_blocked");
  EXPECT_EQ(std::get<Dtype>(spec.defaults.at(Axis::dtype).value), Dtype::f64);
  EXPECT_EQ(std::get<BlockShape>(spec.defaults.at(Axis::block).value), (BlockShape{32, 8}));
  EXPECT_EQ(std::get<std::int64_t>(spec.defaults.at(Axis::threads).value), 4);
  EXPECT_EQ(std::get<std::int64_t>(spec.defaults.at(Axis::kernel_size).value), 5);
  EXPECT_EQ(std::get<std::int64_t>(spec.defaults.at(Axis::grid).value), 7);
  EXPECT_EQ(std::get<bool>(spec.defaults.at(Axis::print).value), true);
  EXPECT_EQ(spec.defaults.at(Axis::kernel).where.line, 3);
  EXPECT_EQ(spec.defaults.at(Axis::kernel).where.column, 9);

  EXPECT_EQ(spec.repeat.warmup, 3);
  EXPECT_EQ(spec.repeat.min_samples, 7);
  EXPECT_EQ(spec.repeat.max_samples, 9);
  EXPECT_DOUBLE_EQ(spec.repeat.target_rsd, 0.05);
  EXPECT_DOUBLE_EQ(spec.repeat.min_seconds, 0.25);
  EXPECT_DOUBLE_EQ(spec.repeat.max_seconds, 1.5);
  EXPECT_EQ(spec.measure, MeasureMode::cold);

  ASSERT_TRUE(spec.baseline.has_value());
  EXPECT_EQ(spec.baseline->variant, "omp_serial");
  ASSERT_EQ(spec.baseline->fixed.size(), 1u);
  EXPECT_EQ(spec.baseline->fixed[0].first, Axis::threads);
  EXPECT_EQ(std::get<std::int64_t>(spec.baseline->fixed[0].second.value), 1);

  EXPECT_EQ(spec.seed, 1234u);
  EXPECT_DOUBLE_EQ(spec.timeout_s, 30.0);

  ASSERT_EQ(spec.sweeps.size(), 1u);
  EXPECT_EQ(sweep_count(spec, 0, Axis::size), 2u);
  EXPECT_EQ(std::get<ProblemSize>(sweep_value(spec, 0, Axis::size, 1).value),
            (ProblemSize{128, 128, 128}));
  EXPECT_EQ(sweep_value(spec, 0, Axis::size, 1).where.line, 23);
  EXPECT_EQ(sweep_value(spec, 0, Axis::size, 1).where.column, 16);
  EXPECT_EQ(std::get<std::int64_t>(sweep_value(spec, 0, Axis::threads, 1).value), 2);

  ASSERT_EQ(spec.excludes.size(), 1u);
  ASSERT_EQ(spec.excludes[0].axes.size(), 2u);
  EXPECT_EQ(spec.excludes[0].axes[0].first, Axis::size);
  EXPECT_EQ(spec.excludes[0].axes[1].first, Axis::threads);

  ASSERT_TRUE(spec.slurm.has_value());
  EXPECT_EQ(spec.slurm->partition, "gpu");
  EXPECT_EQ(spec.slurm->account, "proj42");
  EXPECT_EQ(spec.slurm->qos, "normal");
  EXPECT_EQ(spec.slurm->time, "00:30:00");
  EXPECT_EQ(spec.slurm->gres, "gpu:1");
  EXPECT_EQ(spec.slurm->constraint, "h100");
  EXPECT_EQ(spec.slurm->cpus, 16);
  EXPECT_EQ(spec.slurm->throttle, 4);
  EXPECT_EQ(spec.slurm->extra, (std::vector<std::string>{"--exclusive", "--mem=0"}));
  EXPECT_EQ(spec.slurm->mem, "16G");
  EXPECT_EQ(spec.slurm->exclude, "node[01-03],gpu7");
  EXPECT_EQ(spec.slurm->setup,
            (std::vector<std::string>{"module load cuda/12.4", "source ~/venv/bin/activate",
                                      "echo \"a: b\" $HOME"}));

  // The manifest keeps the config as read, values as their text.
  EXPECT_EQ(spec.as_json["experiment"], "full_example");
  EXPECT_EQ(spec.as_json["sweeps"][0]["size"][1], "128");
  EXPECT_EQ(spec.as_json["slurm"]["extra"][0], "--exclusive");
}

TEST(Config, DefaultsOfAMinimalConfig) {
  const ExperimentSpec spec = parse("experiment: tiny\nkernel: gemm\nsweeps:\n  - size: 8\n");
  EXPECT_EQ(spec.repeat.warmup, 2);
  EXPECT_EQ(spec.repeat.min_samples, 5);
  EXPECT_EQ(spec.repeat.max_samples, 100);
  EXPECT_DOUBLE_EQ(spec.repeat.target_rsd, 0.005);
  EXPECT_DOUBLE_EQ(spec.repeat.min_seconds, 0.05);
  EXPECT_DOUBLE_EQ(spec.repeat.max_seconds, 2.0);
  EXPECT_FALSE(spec.measure.has_value());
  EXPECT_FALSE(spec.baseline.has_value());
  EXPECT_FALSE(spec.slurm.has_value());
  EXPECT_EQ(spec.seed, 42u);
  EXPECT_DOUBLE_EQ(spec.timeout_s, 120.0);
  EXPECT_TRUE(spec.excludes.empty());
  ASSERT_EQ(spec.defaults.size(), 1u);
  EXPECT_EQ(sweep_count(spec, 0, Axis::size), 1u);  // a scalar is a one-element list
}

TEST(Config, RepeatKeysCanBeGivenAlone) {
  const ExperimentSpec spec = parse(
      "experiment: e\nkernel: gemm\nrepeat: {max_samples: 3, min_samples: 3}\nsweeps:\n  - size: "
      "8\n");
  EXPECT_EQ(spec.repeat.min_samples, 3);
  EXPECT_EQ(spec.repeat.max_samples, 3);
  EXPECT_EQ(spec.repeat.warmup, 2);
}

TEST(Config, SizeAsNumberMeansEveryDimension) {
  const ExperimentSpec spec = parse("experiment: e\nkernel: gemm\nsweeps:\n  - size: 96\n");
  EXPECT_EQ(std::get<ProblemSize>(sweep_value(spec, 0, Axis::size, 0).value),
            (ProblemSize{96, 96, 96}));
}

TEST(Config, SizeAsMapping) {
  const ExperimentSpec spec =
      parse("experiment: e\nkernel: gemm\nsweeps:\n  - size: [{m: 3, n: 5, k: 7}, {n: 2, m: 4}]\n");
  EXPECT_EQ(std::get<ProblemSize>(sweep_value(spec, 0, Axis::size, 0).value),
            (ProblemSize{3, 5, 7}));
  EXPECT_EQ(std::get<ProblemSize>(sweep_value(spec, 0, Axis::size, 1).value),
            (ProblemSize{4, 2, 0}));
}

TEST(Config, BlockSpellings) {
  const ExperimentSpec spec = parse(R"(experiment: e
kernel: gemm
sweeps:
  - block: [32, 8]
  - block: "32x8"
  - block: 64
  - block: [[16, 16], [8, 4], "2x1", [128]]
  - block: ["32x8", "16x16"]
)");
  EXPECT_EQ(std::get<BlockShape>(sweep_value(spec, 0, Axis::block, 0).value), (BlockShape{32, 8}));
  EXPECT_EQ(sweep_count(spec, 0, Axis::block), 1u);  // [32, 8] is one block, not two
  EXPECT_EQ(std::get<BlockShape>(sweep_value(spec, 1, Axis::block, 0).value), (BlockShape{32, 8}));
  EXPECT_EQ(std::get<BlockShape>(sweep_value(spec, 2, Axis::block, 0).value), (BlockShape{64, 1}));
  ASSERT_EQ(sweep_count(spec, 3, Axis::block), 4u);
  EXPECT_EQ(std::get<BlockShape>(sweep_value(spec, 3, Axis::block, 0).value), (BlockShape{16, 16}));
  EXPECT_EQ(std::get<BlockShape>(sweep_value(spec, 3, Axis::block, 1).value), (BlockShape{8, 4}));
  EXPECT_EQ(std::get<BlockShape>(sweep_value(spec, 3, Axis::block, 2).value), (BlockShape{2, 1}));
  EXPECT_EQ(std::get<BlockShape>(sweep_value(spec, 3, Axis::block, 3).value), (BlockShape{128, 1}));
  ASSERT_EQ(sweep_count(spec, 4, Axis::block), 2u);  // a list of "XxY" is a list of blocks
  EXPECT_EQ(std::get<BlockShape>(sweep_value(spec, 4, Axis::block, 0).value), (BlockShape{32, 8}));
  EXPECT_EQ(std::get<BlockShape>(sweep_value(spec, 4, Axis::block, 1).value), (BlockShape{16, 16}));
}

TEST(Config, DtypeSpellings) {
  const ExperimentSpec spec = parse(
      "experiment: e\nkernel: gemm\nsweeps:\n  - dtype: [float, f32, fp32, double, f64, fp64]\n");
  const Dtype expected[] = {Dtype::f32, Dtype::f32, Dtype::f32, Dtype::f64, Dtype::f64, Dtype::f64};
  for (std::size_t i = 0; i < 6; ++i)
    EXPECT_EQ(std::get<Dtype>(sweep_value(spec, 0, Axis::dtype, i).value), expected[i]) << i;
}

TEST(Config, BooleanSpellings) {
  const ExperimentSpec spec =
      parse("experiment: e\nkernel: hello\nsweeps:\n  - print: [true, false, yes, no, on, off]\n");
  const bool expected[] = {true, false, true, false, true, false};
  for (std::size_t i = 0; i < 6; ++i)
    EXPECT_EQ(std::get<bool>(sweep_value(spec, 0, Axis::print, i).value), expected[i]) << i;
}

TEST(Config, BooleanSpellingsOfYaml11And12) {
  // YAML 1.2 (editors) reads True and FALSE as booleans and "yes" as a word; YAML 1.1 (Python)
  // reads both as booleans: the runner takes every spelling either reads as one, quoted or not.
  const ExperimentSpec spec = parse(
      "experiment: e\nkernel: hello\nsweeps:\n  - print: [True, FALSE, Yes, OFF, \"yes\", "
      "'false']\n");
  const bool expected[] = {true, false, true, false, true, false};
  for (std::size_t i = 0; i < 6; ++i)
    EXPECT_EQ(std::get<bool>(sweep_value(spec, 0, Axis::print, i).value), expected[i]) << i;
}

TEST(Config, IntegersAsYamlWritesThem) {
  // 2.0 is the integer 2 to every YAML-to-JSON tool, and so to the schema: to the runner too.
  const ExperimentSpec spec = parse(
      "experiment: e\nkernel: gemm\nsweeps:\n  - threads: [+3, 2.0, 1.6e1, 4.]\n"
      "timeout_s: +30\n");
  const std::int64_t expected[] = {3, 2, 16, 4};
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_EQ(std::get<std::int64_t>(sweep_value(spec, 0, Axis::threads, i).value), expected[i])
        << i;
  EXPECT_EQ(spec.timeout_s, 30.0);
}

TEST(Config, AQuotedNumberIsABlockInTextForm) {
  const ExperimentSpec spec =
      parse("experiment: e\nkernel: gemm\nsweeps:\n  - block: [\"64\", \"8x4\"]\n");
  EXPECT_EQ(std::get<BlockShape>(sweep_value(spec, 0, Axis::block, 0).value), (BlockShape{64, 1}));
  EXPECT_EQ(std::get<BlockShape>(sweep_value(spec, 0, Axis::block, 1).value), (BlockShape{8, 4}));
}

TEST(Config, BaselineAsAName) {
  const ExperimentSpec spec =
      parse("experiment: e\nkernel: gemm\nbaseline: omp_serial\nsweeps:\n  - size: 8\n");
  ASSERT_TRUE(spec.baseline.has_value());
  EXPECT_EQ(spec.baseline->variant, "omp_serial");
  EXPECT_TRUE(spec.baseline->fixed.empty());
  EXPECT_EQ(spec.baseline->where.line, 3);
  EXPECT_EQ(spec.baseline->where.column, 11);
}

TEST(Config, SlurmExtraMayBeOneString) {
  const ExperimentSpec spec =
      parse("experiment: e\nkernel: gemm\nslurm: {extra: --exclusive}\nsweeps:\n  - size: 8\n");
  ASSERT_TRUE(spec.slurm.has_value());
  EXPECT_EQ(spec.slurm->extra, (std::vector<std::string>{"--exclusive"}));
  EXPECT_EQ(spec.slurm->cpus, 0);
  EXPECT_EQ(spec.slurm->throttle, 0);
}

TEST(Config, GpusIsACountAListOrAll) {
  const auto gpus_of = [](const std::string& value) {
    const ExperimentSpec spec =
        parse("experiment: e\nkernel: gemm\ngpus: " + value + "\nsweeps:\n  - size: 8\n");
    EXPECT_TRUE(spec.gpus.has_value());
    return spec.gpus.value_or(GpuRequest{});
  };
  const GpuRequest count = gpus_of("2");
  EXPECT_EQ(count.kind, GpuRequest::Kind::count);
  EXPECT_EQ(count.count, 2);
  // A list of one is the GPU 2, not a count; its messages say where it was written and as what.
  const GpuRequest one = gpus_of("[2]");
  EXPECT_EQ(one.kind, GpuRequest::Kind::list);
  EXPECT_EQ(one.items, (std::vector<std::string>{"2"}));
  EXPECT_EQ(one.origin, "test.yaml:3:7: gpus: [2]");
  const GpuRequest uuids = gpus_of("[GPU-a, MIG-b, 0]");
  EXPECT_EQ(uuids.items, (std::vector<std::string>{"GPU-a", "MIG-b", "0"}));
  EXPECT_EQ(gpus_of("all").kind, GpuRequest::Kind::all);
}

TEST(Config, SeveralSweepsAndExcludesKeepTheirOrder) {
  const ExperimentSpec spec = parse(R"(experiment: e
kernel: gemm
sweeps:
  - {variant: omp_serial, size: 8}
  - {variant: [omp_blocked], threads: [1, 2], size: 16}
exclude:
  - threads: 2
  - {size: 8}
)");
  ASSERT_EQ(spec.sweeps.size(), 2u);
  EXPECT_EQ(spec.sweeps[1].axes[0].first, Axis::variant);
  EXPECT_EQ(spec.sweeps[1].axes[1].first, Axis::threads);
  EXPECT_EQ(spec.sweeps[1].where.line, 5);
  ASSERT_EQ(spec.excludes.size(), 2u);
  EXPECT_EQ(spec.excludes[0].axes[0].first, Axis::threads);
  EXPECT_EQ(spec.excludes[1].axes[0].first, Axis::size);
}

TEST(Config, LoadConfigReadsAFile) {
  const auto file = std::filesystem::temp_directory_path() /
                    ("runner_config_test_" + std::to_string(::getpid()) + ".yaml");
  {
    std::ofstream out(file);
    out << "experiment: from_file\nkernel: gemm\nsweeps:\n  - size: 8\n";
  }
  const ExperimentSpec spec = load_config(file);
  std::filesystem::remove(file);
  EXPECT_EQ(spec.experiment, "from_file");
  EXPECT_EQ(spec.file, file);
}

TEST(AxisValue, ToString) {
  EXPECT_EQ(to_string(AxisValue{std::string("omp")}), "omp");
  EXPECT_EQ(to_string(AxisValue{std::int64_t{12}}), "12");
  EXPECT_EQ(to_string(AxisValue{ProblemSize{4, 5, 6}}), "4x5x6");
  EXPECT_EQ(to_string(AxisValue{ProblemSize{4, 5, 0}}), "4x5");
  EXPECT_EQ(to_string(AxisValue{BlockShape{32, 8}}), "32x8");
  EXPECT_EQ(to_string(AxisValue{Dtype::f64}), "double");
  EXPECT_EQ(to_string(AxisValue{false}), "false");
}

TEST(Axis, NamesRoundTrip) {
  for (Axis a : kAllAxes) EXPECT_EQ(parse_axis(axis_name(a)), a);
  EXPECT_FALSE(parse_axis("thread").has_value());
}

}  // namespace
}  // namespace runner
