// `runner CONFIG` (`runner run CONFIG`): expands the matrix, picks the shard, claims the results
// folder and runs every point (runner/run/experiment.hpp).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string_view>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "runner/api/registry.hpp"
#include "runner/base/errors.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/terminal.hpp"
#include "runner/measure/calibration.hpp"
#include "runner/measure/environment.hpp"
#include "runner/measure/gpu_devices.hpp"
#include "runner/plugin/plugins.hpp"
#include "runner/run/experiment.hpp"
#include "runner/run/output_dir.hpp"
#include "runner/run/resume_selection.hpp"
#include "runner/spec/config.hpp"
#include "runner/spec/matrix.hpp"
#include "runner/spec/point_filter.hpp"

namespace runner::cli {

namespace {

struct ShardSpec {
  int index = 0, count = 1;
};

std::optional<ShardSpec> parse_shard(const std::string& text) {
  ShardSpec s;
  char slash = 0;
  std::istringstream in(text);
  if (!(in >> s.index >> slash >> s.count) || slash != '/' || !in.eof() || s.count < 1 ||
      s.index < 0 || s.index >= s.count)
    return std::nullopt;
  return s;
}

// Every GPU point once per GPU of the run (`gpu_mode: each`), in the order of the matrix; CPU
// points once.
std::vector<Point> copies_per_gpu(const std::vector<Point>& points, std::size_t gpus) {
  std::vector<Point> out;
  for (const auto& p : points) {
    const KernelInfo* k = Registry::instance().find(p.kernel);
    const VariantInfo* v = k ? k->find_variant(p.variant) : nullptr;
    if (!v || !is_gpu(v->backend)) {
      out.push_back(p);
      continue;
    }
    for (std::size_t g = 0; g < gpus; ++g) {
      Point copy = p;
      copy.gpu = static_cast<int>(g);
      out.push_back(std::move(copy));
    }
  }
  return out;
}

}  // namespace

int run_command(const RunArguments& args) {
  const ExperimentSpec spec = load_config(args.config);
  // A shard of a submitted run loads the plugin libraries `runner submit` copied into its folder.
  plugin::PluginOptions plugin_options{.quiet = args.quiet};
  if (!args.out.empty() && std::filesystem::exists(plugin::submitted_plugins_file(args.out)))
    plugin_options.submitted_run = args.out;
  const auto plugins = plugin::load_plugins(spec, Registry::instance(), plugin_options);
  std::string stem = "records", shard_label;
  std::optional<ShardSpec> shard_spec;
  if (!args.shard.empty()) {
    shard_spec = parse_shard(args.shard);
    if (!shard_spec)
      throw CLI::ValidationError("--shard",
                                 "expected I/N with 0 <= I < N, got '" + args.shard + "'");
    stem = fmt::format("shards/{}", shard_spec->index);
    shard_label = args.shard;
  }
  // --only / --set: those given, or on --resume those the run recorded.
  PointSelection selection = args.selection;
  if (args.resume && !args.out.empty())
    selection =
        resumed_selection(std::filesystem::path(args.out) /
                              (stem == "records" ? "manifest.json" : stem + ".manifest.json"),
                          args.selection);
  const std::vector<Point> all_matrix_points =
      selected_points(spec, selection, Registry::instance());

  // The GPUs (docs/measurement.md, "Several GPUs"): --gpus over `gpus:`, listed (by NVML, or by
  // the GPU runtime in a child process: gpu_devices.hpp) when the matrix has GPU points or GPUs
  // were named.
  GpuRequest request = spec.gpus.value_or(GpuRequest{});
  if (args.gpus) {
    try {
      request = parse_gpu_request(*args.gpus);
    } catch (const std::invalid_argument& e) {
      // A blank value quoted, so that the message shows what was given.
      const bool blank = args.gpus->find_first_not_of(" \t") == std::string::npos;
      throw UsageError(fmt::format("--gpus {}: {}",
                                   blank ? fmt::format("'{}'", *args.gpus) : *args.gpus, e.what()));
    }
  }
  const GpuMode gpu_mode = args.gpu_mode.empty() ? spec.gpu_mode.value_or(GpuMode::spread)
                                                 : *parse_gpu_mode(args.gpu_mode);
  const bool gpu_points =
      std::any_of(all_matrix_points.begin(), all_matrix_points.end(), [](const Point& p) {
        const KernelInfo* k = Registry::instance().find(p.kernel);
        const VariantInfo* v = k ? k->find_variant(p.variant) : nullptr;
        return v && is_gpu(v->backend) && v->factory;
      });
  // The rest, once with NVML's listing where it is certain and again with the runtime's if a
  // worker's hello disagrees with it (gpu_devices.hpp, GpuListing): before any record is written.
  std::optional<std::filesystem::path> made_out_dir;
  auto run_with = [&](GpuListing listing) -> int {
    std::vector<Point> all_points = all_matrix_points;
    GpuInventory inventory;
    std::vector<GpuDevice> gpus;
    if (gpu_points || request.kind != GpuRequest::Kind::all) {
      const auto probe_start = std::chrono::steady_clock::now();
      inventory = probe_gpus(listing);
      spdlog::debug(
          "GPUs listed in {:.3f} s",
          std::chrono::duration<double>(std::chrono::steady_clock::now() - probe_start).count());
      gpus = select_gpus(request, inventory);
    }
    // `each`: every GPU point once per GPU, each copy its own point (its key says gpu=I).
    if (gpu_mode == GpuMode::each && gpus.size() > 1)
      all_points = copies_per_gpu(all_points, gpus.size());

    std::vector<Point> points = all_points;
    if (shard_spec) {
      // Bounded before shard() sizes anything by it (1/2147483647 was std::bad_alloc), as
      // `runner submit --tasks` is: a shard beyond the points would be empty.
      if (static_cast<std::size_t>(shard_spec->count) > all_points.size())
        throw UsageError(fmt::format(
            "--shard {}: the matrix has {} point(s), so 1 to {} shards (an empty shard measures "
            "nothing)",
            args.shard, all_points.size(), all_points.size()));
      points = shard(all_points, shard_spec->index, shard_spec->count, Registry::instance());
    }
    if (args.dry_run) {
      for (const auto& p : points)
        fmt::print("{}  {}{}\n", p.id(), p.key(), p.is_baseline ? "  (baseline)" : "");
      fmt::print("{} points\n", points.size());
      return 0;
    }
    RunOptions options;
    if (args.out.empty()) {
      if (args.resume)
        throw UsageError("--resume needs --out DIR: the folder of the run to continue");
      if (!made_out_dir)
        made_out_dir = make_unique_run_dir(std::filesystem::path("results") / spec.experiment,
                                           environment().host);
      options.out_dir = *made_out_dir;
    } else {
      options.out_dir = args.out;
    }
    // A shard of a submitted run always gets --resume (jobs/shard.sbatch: a requeued shard must
    // keep its records), so a shard without files yet is the normal first start, not news.
    if (args.resume && shard_label.empty() &&
        !std::filesystem::exists(options.out_dir / (stem + ".jsonl")) &&
        !std::filesystem::exists(options.out_dir / (stem + ".csv")))
      spdlog::warn("--resume: {} holds no records yet; starting afresh", options.out_dir.string());
    options.stem = stem;
    options.shard_label = shard_label;
    options.resume = args.resume;
    options.force_mix = args.force_mix;
    // A line rewritten in place needs a terminal that erases lines; a log, a pipe or TERM=dumb gets
    // a line now and then.
    options.progress = args.quiet                        ? Progress::Mode::off
                       : rewritable_lines(STDERR_FILENO) ? Progress::Mode::terminal
                                                         : Progress::Mode::log;
    options.calibration_dir = args.calibration_dir;  // empty: this machine's store
    options.calibrate = !args.no_calibrate;
    options.plugins = plugin::plugins_manifest(plugins);
    if (!selection.empty()) options.selection = selection.to_json();
    options.gpus = gpus;
    options.gpu_inventory = inventory;
    options.gpu_mode = gpu_mode;
    if (gpu_points)
      spdlog::info("GPUs: {}{}", describe_selection(gpus, inventory),
                   gpus.size() > 1 ? fmt::format(", {} mode", gpu_mode_name(gpu_mode)) : "");
    spdlog::info("{}: {} points{} -> {}", spec.experiment, points.size(),
                 shard_label.empty() ? "" : " in shard " + shard_label, options.out_dir.string());
    return run_experiment(spec, all_points, points, Registry::instance(), options);
  };
  // RUNNER_GPU_LISTING=runtime: the runtime's listing always (a node where NVML's misleads).
  const char* listing = std::getenv("RUNNER_GPU_LISTING");
  if (listing && std::string_view(listing) == "runtime") return run_with(GpuListing::runtime);
  try {
    return run_with(GpuListing::nvml_where_certain);
  } catch (const GpuListingDisagrees& e) {
    spdlog::info("{}: the GPUs are listed again by the GPU runtime", e.what());
    return run_with(GpuListing::runtime);
  }
}

}  // namespace runner::cli
