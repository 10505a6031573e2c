// The parent's side of a run: claims the folder, starts workers, sends them points one by one,
// streams their records to disk and ends with valid files whatever happens
// (runner/run/experiment.hpp).
#include "runner/run/experiment.hpp"
#include "runner/run/point_runner.hpp"

#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <map>
#include <memory>
#include <new>
#include <set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "runner/api/errors.hpp"
#include "runner/api/gpu_info.hpp"
#include "runner/base/build_info.hpp"
#include "runner/base/errors.hpp"
#include "runner/base/exit_codes.hpp"
#include "runner/base/host_memory.hpp"
#include "runner/base/interrupt.hpp"
#include "runner/measure/calibration.hpp"
#include "runner/measure/device_monitor.hpp"
#include "runner/measure/environment.hpp"
#include "runner/measure/profiler_range.hpp"
#include "runner/measure/sampling.hpp"
#include "runner/measure/thread_placement.hpp"
#include "runner/results/ceilings.hpp"
#include "runner/results/manifest.hpp"
#include "runner/results/record_files.hpp"
#include "runner/results/relative_metrics.hpp"
#include "runner/results/stale_ceilings.hpp"
#include "runner/results/summary.hpp"
#include "runner/run/output_dir.hpp"
#include "runner/run/progress.hpp"
#include "runner/run/resume.hpp"
#include "runner/run/worker_process.hpp"

namespace runner {

namespace {

// The device a run measures, from the environment a worker reported: the GPU's name when the
// config has CUDA points and a GPU is present, else the CPU model.
std::string device_of(const nlohmann::json& env) {
  if (env.contains("gpu") && env["gpu"].value("present", false))
    return env["gpu"].value("name", "");
  return env.value("cpu_model", "");
}

// The command that continues this run, ready to paste into a shell. A shard of a submitted run
// is continued by resubmitting the run (Slurm runs the shard again, with --resume).
std::string resume_command(const ExperimentSpec& spec, const RunOptions& options) {
  std::string cmd = fmt::format("runner {} --out {} --resume", shell_quote(spec.file.string()),
                                shell_quote(options.out_dir.string()));
  if (options.shard_label.empty()) return cmd;
  cmd += " --shard " + options.shard_label;
  std::error_code ec;
  if (std::filesystem::exists(options.out_dir / "slurm", ec))
    return fmt::format("runner submit --resume {} (the submitted run), or on this node: {}",
                       shell_quote(options.out_dir.string()), cmd);
  return cmd;
}

// Messages at the end of a run go to a terminal that may be gone (SIGHUP): never let that turn
// a finished run into an error.
template <typename Fn>
void print_quietly(Fn&& fn) {
  try {
    fn();
  } catch (const std::exception&) {
  }
}

// What a resume reads before anything is rewritten: the records there, checked against the plan.
struct PreviousRecords {
  KeptRecords kept;
  std::vector<std::string> dropped_lines;  // unreadable, duplicate or foreign: kept aside
};

PreviousRecords read_previous_records(const std::filesystem::path& jsonl,
                                      const std::vector<Point>& points) {
  JsonlContent content = read_records(jsonl);
  for (const auto& w : content.warnings) spdlog::warn("{}", w);
  PreviousRecords previous;
  previous.dropped_lines = std::move(content.dropped_lines);
  std::set<std::string> planned;
  for (const auto& p : points) planned.insert(p.id());
  std::vector<Record> all = content.records;
  previous.kept = keep_for_resume(std::move(content.records), points);
  // The lines the kept set leaves out, verbatim (a duplicate is its earlier or losing line).
  std::map<std::string, int> kept_lines;
  for (const auto& r : previous.kept.records) ++kept_lines[r.dump()];
  for (const auto& r : all) {
    const std::string line = r.dump();
    if (auto it = kept_lines.find(line); it != kept_lines.end() && it->second > 0) {
      --it->second;
      continue;
    }
    previous.dropped_lines.push_back(line);
  }
  return previous;
}

}  // namespace

int run_experiment(const ExperimentSpec& spec, const std::vector<Point>& all_points,
                   const std::vector<Point>& points, const Registry& registry,
                   const RunOptions& options) {
  const auto run_start = std::chrono::steady_clock::now();
  // The folder first: a bad --out costs nothing (no worker, no calibration).
  const ClaimedOutput claim = claim_output_dir(options.out_dir, options.stem, options.resume,
                                               options.resume ? "resume" : "run");
  Manifest manifest(options.out_dir,
                    options.stem == "records" ? "manifest.json" : options.stem + ".manifest.json");
  const std::filesystem::path jsonl = options.out_dir / (options.stem + ".jsonl");
  std::error_code ec;
  // An empty records file holds nothing to protect (a run stopped before its first record).
  const bool records_exist =
      std::filesystem::exists(jsonl, ec) && std::filesystem::file_size(jsonl, ec) > 0;
  RunIdentity identity = identity_of(spec.text);
  if (claim.had_results) {
    check_resume_compatible(manifest.path(), identity, records_exist, options.force_mix);
    check_plugins_unchanged(manifest.path(), options.plugins, options.force_mix);
  }
  std::optional<PreviousRecords> previous;
  if (claim.had_results) previous = read_previous_records(jsonl, points);

  auto stopped_before_start = [&]() {
    print_quietly([&] {
      fmt::print(stderr, "\nInterrupted by {} before the first point. Resume with: {}\n",
                 signal_name(interrupt_signal()), resume_command(spec, options));
    });
    return exit_code::kSignalBase + interrupt_signal();
  };

  // Points run in a worker process; this process owns the files. Start the first worker now: its
  // hello carries the environment (GPU included) that the manifest and the identity need.
  auto worker = std::make_unique<WorkerProcess>(spec, points, registry);
  if (!worker->hello()) {
    if (interrupt_requested()) return stopped_before_start();
    throw Refused("the worker process died while starting (initialising CUDA?)");
  }
  const nlohmann::json env = *worker->hello();
  const std::string gpu_name = env.contains("gpu") ? env["gpu"].value("name", "") : "";
  identity.device = device_of(env);
  if (claim.had_results)
    check_resume_compatible(manifest.path(), identity, records_exist, options.force_mix);

  const nlohmann::ordered_json calibration =
      calibration_for_run(options.calibration_dir, env, calibration_needs(points, registry, env),
                          options.calibrate, options.out_dir);
  if (interrupt_requested()) return stopped_before_start();
  const Ceilings ceilings(calibration);

  manifest.describe(spec, all_points, identity, options.shard_label, env);
  manifest.add("calibration", calibration);
  if (!options.plugins.empty()) manifest.add("plugins", options.plugins);
  if (!options.selection.is_null()) manifest.add("selection", options.selection);
  if (claim.had_results) manifest.continue_from(manifest.path());

  std::vector<Record> kept;
  std::set<std::string> done;
  if (previous) {
    const KeptRecords& k = previous->kept;
    if (k.duplicates > 0 || k.foreign > 0 || !previous->dropped_lines.empty()) {
      const auto aside = options.out_dir / (options.stem + ".jsonl.dropped");
      append_dropped_lines(aside, previous->dropped_lines,
                           "left out by a resume: unreadable, repeated, or of points not in "
                           "this run");
      spdlog::warn(
          "--resume: left out {} repeated record(s), {} record(s) of points not in this "
          "run and {} unreadable line(s); their text is in {}",
          k.duplicates, k.foreign, previous->dropped_lines.size() - k.duplicates - k.foreign,
          aside.string());
    }
    kept = k.records;
    done = k.done;
  }
  // The manifest first: a folder with records always has one (a resume trusts nothing else).
  std::unique_ptr<RecordFiles> files_owner;
  try {
    manifest.write("running", kept);
    files_owner = std::make_unique<RecordFiles>(options.out_dir, options.stem);
    files_owner->start_with(kept);
  } catch (const Refused& e) {
    print_quietly([&] {
      fmt::print(stderr, "error: {}\nNothing was run. Make room, then start again with: {}\n",
                 e.what(), resume_command(spec, options));
    });
    return exit_code::kRefused;
  }
  RecordFiles& files = *files_owner;

  RelativeMetrics relative(registry);
  for (const auto& r : kept) relative.observe(r);
  std::size_t to_run = 0;
  for (const auto& p : points) to_run += done.count(p.id()) ? 0 : 1;
  if (claim.had_results)
    spdlog::info("resuming: {} points already ok, {} to run{}", done.size(), to_run,
                 kept.size() > done.size()
                     ? fmt::format(" ({} failed, skipped or invalid before: run again)",
                                   kept.size() - done.size())
                     : "");

  std::vector<std::string> kinds;
  kinds.reserve(points.size());
  for (const auto& p : points) kinds.push_back(p.kernel + "/" + p.variant);
  Progress progress(options.progress, std::move(kinds));
  std::string write_error;
  int failed_starts = 0;
  PointTimes ran;  // this invocation's points (a resume keeps earlier ones besides)
  try {
    for (std::size_t i = 0; i < points.size(); ++i) {
      const Point& p = points[i];
      if (done.count(p.id())) {
        progress.skip(i);
        continue;
      }
      if (interrupt_requested()) break;
      const auto point_start = std::chrono::steady_clock::now();
      if (!worker || !worker->alive()) {
        worker = std::make_unique<WorkerProcess>(spec, points, registry);
        if (!worker->hello()) {
          if (interrupt_requested()) break;
          if (++failed_starts >= 3)
            throw Refused("three worker processes in a row died while starting; giving up");
        }
      }
      progress.start(p.key());
      // Seconds a point may take once a stop was asked for before it is abandoned.
      constexpr double kGraceSeconds = 3.0;
      const WorkerProcess::Outcome outcome = worker->run(i, spec.timeout_s, kGraceSeconds);
      if (outcome.kind == WorkerProcess::Outcome::interrupted) {
        // A stop signal sent to the worker alone stops the run as one sent to the runner would.
        request_interrupt(outcome.signal > 0 ? outcome.signal : SIGTERM);
        break;
      }
      Record r;
      if (outcome.kind == WorkerProcess::Outcome::finished) {
        r = outcome.record;
        failed_starts = 0;
      } else {
        const KernelInfo* k = registry.find(p.kernel);
        r = base_record(spec, p, k ? k->find_variant(p.variant) : nullptr, gpu_name);
        set_status(r, Status::failed,
                   outcome.kind == WorkerProcess::Outcome::timed_out
                       ? outcome.cause
                       : "the point crashed its worker process: " + outcome.cause);
      }
      r["point_s"] =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - point_start).count();
      relative.observe(r);
      relative.apply(r);
      ceilings.apply(r, registry);
      files.append(r);
      progress.finish(i, r.value("status", ""), r.value("point_s", 0.0));
      ran.add(r);
    }
  } catch (const Refused& e) {
    // The records cannot be written (a full disk, a quota): stop here, with every record written
    // so far intact (a line cut short is taken back).
    write_error = e.what();
  }
  worker.reset();
  progress.clear();
  // The machine's store learns what these points reached (runner/results/stale_ceilings.hpp).
  note_points_against_ceilings(calibration, files.records());
  const bool interrupted = interrupt_requested();
  bool finished_files = true;
  try {
    files.compact();
    manifest.write(interrupted || !write_error.empty() ? "interrupted" : "complete",
                   files.records());
  } catch (const Refused& e) {
    finished_files = false;
    if (write_error.empty()) write_error = e.what();
  }
  if (!write_error.empty()) {
    print_quietly([&] {
      fmt::print(stderr,
                 "\nerror: {}\nThe run stopped: {} records are safe in {}{}. Make room, then "
                 "resume with: {}\n",
                 write_error, files.records().size(), options.out_dir.string(),
                 finished_files ? "" : " (the manifest still says running)",
                 resume_command(spec, options));
    });
    return exit_code::kRefused;
  }
  print_quietly([&] {
    print_summary(
        files.records(), points.size(), stdout,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count(), &ran);
  });
  if (interrupted) {
    const int sig = interrupt_signal();
    print_quietly([&] {
      fmt::print(stderr,
                 "\nInterrupted by {} after {} of {} points. Records so far are in {}.\n"
                 "Resume with: {}\n",
                 signal_name(sig), files.records().size(), points.size(), options.out_dir.string(),
                 resume_command(spec, options));
    });
    return exit_code::kSignalBase + sig;
  }
  print_quietly([&] { fmt::print("Results: {}\n", options.out_dir.string()); });
  for (const auto& r : files.records())
    if (r.value("status", "") == "failed") return exit_code::kPointFailed;
  return exit_code::kOk;
}

}  // namespace runner
