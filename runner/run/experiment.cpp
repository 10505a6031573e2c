// The parent's side of a run: claims the folder, starts workers, sends them points one by one,
// streams their records to disk and ends with valid files whatever happens
// (runner/run/experiment.hpp).
#include "runner/run/experiment.hpp"
#include "runner/run/point_runner.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
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
#include "runner/base/task_limit.hpp"
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
#include "runner/run/device_scheduler.hpp"
#include "runner/run/device_slots.hpp"
#include "runner/run/output_dir.hpp"
#include "runner/run/output_watch.hpp"
#include "runner/run/progress.hpp"
#include "runner/run/record_recovery.hpp"
#include "runner/run/resume.hpp"
#include "runner/run/worker_process.hpp"
#include "runner/spec/matrix.hpp"

namespace runner {

namespace {

// The device a run measures, from the environment a worker reported: the GPU's name when the
// config has CUDA points and a GPU is present, else the CPU model.
std::string device_of(const nlohmann::json& env) {
  if (env.contains("gpu") && env["gpu"].value("present", false))
    return env["gpu"].value("name", "");
  return env.value("cpu_model", "");
}

// The command that continues this run, ready to paste into a shell — from any folder: its paths
// are absolute (a batch log is read, and the command pasted, far from where the run started). A
// shard of a submitted run is continued by resubmitting the run (Slurm runs the shard again, with
// --resume).
std::string resume_command(const ExperimentSpec& spec, const RunOptions& options) {
  std::error_code ec;
  const auto absolute = [&](const std::filesystem::path& p) {
    const auto a = std::filesystem::absolute(p, ec);
    return shell_quote((ec ? p : a.lexically_normal()).string());
  };
  std::string cmd =
      fmt::format("runner {} --out {} --resume", absolute(spec.file), absolute(options.out_dir));
  if (options.shard_label.empty()) return cmd;
  cmd += " --shard " + options.shard_label;
  if (std::filesystem::exists(options.out_dir / "slurm", ec))
    return fmt::format("runner submit --resume {} (the submitted run), or on this node: {}",
                       absolute(options.out_dir), cmd);
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

// The results folder was deleted or moved during the run (runner/run/output_watch.hpp): nothing
// more is written there; say where the records are, or that they are gone.
void print_folder_lost(const OutputWatch::Lost& lost, std::size_t records,
                       const ExperimentSpec& spec, const RunOptions& options) {
  if (lost.deleted) {
    fmt::print(stderr,
               "\nerror: {} was deleted during the run: its {} record(s) went with it. The run "
               "stopped; nothing more was written\n",
               options.out_dir.string(), records);
    return;
  }
  RunOptions there = options;
  there.out_dir = lost.moved_to;
  fmt::print(stderr,
             "\nerror: {} was moved to {} during the run. The run stopped: its {} record(s) are "
             "safe in {} (the manifest still says running). Resume there with: {}\n",
             options.out_dir.string(), lost.moved_to.string(), records, lost.moved_to.string(),
             resume_command(spec, there));
}

// What a resume reads before anything is rewritten: the records there, checked against the plan.
struct PreviousRecords {
  KeptRecords kept;
  std::vector<std::string> dropped_lines;  // unreadable, duplicate or foreign: kept aside
};

PreviousRecords read_previous_records(const RunOptions& options, const std::vector<Point>& points,
                                      const std::filesystem::path& manifest_file) {
  RecordsOfBothFiles found = read_records_of_both_files(options.out_dir / (options.stem + ".jsonl"),
                                                        options.out_dir / (options.stem + ".csv"));
  JsonlContent& content = found.content;
  PreviousRecords previous;
  previous.dropped_lines = std::move(content.dropped_lines);
  // The records are moved, never copied: a resume of 100 000 points held four copies (3.2 GB).
  previous.kept = keep_for_resume(std::move(content.records), points);
  refuse_to_discard_records(manifest_file, previous.kept, found, options.shard_label,
                            options.force_mix);
  for (const auto& w : content.warnings) spdlog::warn("{}", w);
  // The lines the kept set leaves out (a duplicate is its earlier or losing line).
  for (const auto& r : previous.kept.left_out) previous.dropped_lines.push_back(r.dump());
  previous.kept.left_out.clear();
  return previous;
}

// The GPU name a worker's hello reports.
std::string gpu_name_of(const nlohmann::json& hello) {
  return hello.contains("gpu") ? hello["gpu"].value("name", "") : "";
}

// A failed point whose cause is the device, not the point: what takes a GPU out of a run after a
// few in a row (runner/run/device_scheduler.hpp). The CUDA errors of a GPU in trouble (an
// uncorrectable ECC error, an NVLink error, a device lost or unavailable); a point's own crash,
// hang or wrong result is not one of them.
bool is_device_fault(const Record& r) {
  if (text_of(r, "status") != "failed") return false;
  const std::string message = text_of(r, "message");
  for (const char* cause :
       {"cudaErrorECCUncorrectable", "cudaErrorNvlinkUncorrectable", "cudaErrorDevicesUnavailable",
        "cudaErrorDeviceUninitialized", "cudaErrorSystemNotReady", "cudaErrorSystemDriverMismatch",
        "cudaErrorHardwareStackError", "hipErrorECCNotCorrectable"})
    if (message.find(cause) != std::string::npos) return true;
  return false;
}

// The ceilings of one GPU of the run, measured (when missing and `measure`) by a child that sees
// that GPU alone: the calibration child inherits this process's environment, so the visibility
// variable is set to the worker's for the call and restored after. This process never touches
// the GPU runtime.
nlohmann::ordered_json calibration_for_gpu(const std::filesystem::path& dir,
                                           const nlohmann::json& env,
                                           const WorkerPlacement& placement, bool measure,
                                           const std::filesystem::path& results_folder) {
  const char* before = std::getenv(placement.visibility_variable.c_str());
  const std::optional<std::string> saved =
      before ? std::optional<std::string>(before) : std::nullopt;
  if (placement.visible_gpu)
    ::setenv(placement.visibility_variable.c_str(), placement.visible_gpu->c_str(), 1);
  CalibrationNeeds needs;
  needs.gpu = true;
  nlohmann::ordered_json c = calibration_for_run(dir, env, needs, measure, results_folder);
  if (saved)
    ::setenv(placement.visibility_variable.c_str(), saved->c_str(), 1);
  else
    ::unsetenv(placement.visibility_variable.c_str());
  return c;
}

}  // namespace

int run_experiment(const ExperimentSpec& spec, const std::vector<Point>& all_points,
                   const std::vector<Point>& points, const Registry& registry,
                   const RunOptions& options) {
  const auto run_start = std::chrono::steady_clock::now();
  // Where a run's time outside its points goes, at debug level (SPDLOG_LEVEL=debug): the workers'
  // start, the calibrations, the final files, the workers' end.
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  };
  // The folder first: a bad --out costs nothing (no worker, no calibration).
  const ClaimedOutput claim = claim_output_dir(options.out_dir, options.stem, options.resume,
                                               options.resume ? "resume" : "run");
  Manifest manifest(options.out_dir,
                    options.stem == "records" ? "manifest.json" : options.stem + ".manifest.json");
  const std::filesystem::path jsonl = options.out_dir / (options.stem + ".jsonl");
  std::error_code ec;
  // Empty record files hold nothing to protect (a run stopped before its first record).
  const bool records_exist =
      record_files_hold_records(jsonl, options.out_dir / (options.stem + ".csv"));
  RunIdentity identity = identity_of(spec.text);
  if (claim.had_results) {
    check_resume_compatible(manifest.path(), identity, records_exist, options.force_mix);
    check_plugins_unchanged(manifest.path(), options.plugins, options.force_mix);
  }
  std::optional<PreviousRecords> previous;
  if (claim.had_results) previous = read_previous_records(options, points, manifest.path());

  auto stopped_before_start = [&]() {
    print_quietly([&] {
      fmt::print(stderr, "\nInterrupted by {} before the first point. Resume with: {}\n",
                 signal_name(interrupt_signal()), resume_command(spec, options));
    });
    return exit_code::kSignalBase + interrupt_signal();
  };

  // Points run in worker processes, one per device slot (runner/run/device_slots.hpp): one for the
  // CPU points, one per GPU of the run; this process owns the files. Start them now: their hellos
  // carry the environment (the GPUs included) that the manifest and the identity need.
  DeviceSlots slots(spec, points, registry, options.gpus,
                    options.gpu_inventory.visibility_variable);
  slots.start_missing();
  if (slots.cpu().hello.is_null()) {
    if (interrupt_requested()) return stopped_before_start();
    const std::string limit = task_limit_note();
    throw Refused("the worker process died while starting" +
                  (limit.empty() ? std::string(" (initialising CUDA?)") : limit));
  }
  if (spdlog::should_log(spdlog::level::debug)) {
    std::string hellos;
    for (auto& slot : slots.slots())
      if (slot.worker)
        hellos += fmt::format("{}{} {:.3f} s", hellos.empty() ? "" : ", ", slot.label(),
                              slot.worker->hello_seconds());
    spdlog::debug("{:.3f} s: workers said hello ({})", elapsed(), hellos);
  }
  nlohmann::json env = slots.cpu().hello;
  nlohmann::json gpus_used = nlohmann::json::array();
  for (auto& slot : slots.slots()) {
    if (!slot.gpu) continue;
    const nlohmann::json device =
        slot.hello.is_null() ? nlohmann::json() : slot.hello.value("gpu", nlohmann::json());
    const std::string seen = device.is_object() ? device.value("uuid", "") : "";
    if (options.gpu_inventory.predicted && !slot.hello.is_null()) {
      // NVML's listing stood in for the runtime's (gpu_devices.hpp, GpuListing): this worker's
      // runtime says whether it was right. The names are then the runtime's own spelling.
      if (seen != slot.gpu->uuid)
        throw GpuListingDisagrees(fmt::format(
            "the worker of {} ({}={}) sees {}, where NVML's listing put {}", slot.label(),
            slot.placement.visibility_variable, slot.placement.visible_gpu.value_or(""),
            seen.empty() ? "no GPU" : seen, slot.gpu->uuid));
      slot.gpu->name = device.value("name", slot.gpu->name);
      slot.gpu->pci_bus_id = device.value("pci_bus_id", slot.gpu->pci_bus_id);
    }
    nlohmann::json g = slot.gpu->to_json();
    if (!slot.hello.is_null()) g["device"] = device;
    if (!slot.hello.is_null() && slot.hello.contains("gpu_clock_monitor"))
      g["clock_monitor"] = slot.hello["gpu_clock_monitor"];
    // The worker must see the GPU it was started for: a runtime that ignored the worker's
    // visibility list would put two workers on one GPU, and every figure would be wrong.
    if (!seen.empty() && !slot.gpu->uuid.empty() && seen != slot.gpu->uuid)
      throw Refused(
          fmt::format("the worker of {} sees the GPU {}, not {}: {}={} did not give it "
                      "its GPU; nothing was run",
                      slot.label(), seen, slot.gpu->uuid, slot.placement.visibility_variable,
                      slot.placement.visible_gpu.value_or("")));
    gpus_used.push_back(g);
    // The run's GPU, for the manifest's readers and the identity: the first that started; and
    // whether its worker reads the clocks (the parent, which opens no GPU, cannot say).
    if (!slot.hello.is_null() && !env["gpu"].value("present", false)) {
      env["gpu"] = slot.hello["gpu"];
      if (slot.hello.contains("gpu_clock_monitor"))
        env["gpu_clock_monitor"] = slot.hello["gpu_clock_monitor"];
    }
  }
  if (!options.gpus.empty()) {
    env["gpus"] = gpus_used;
    env["gpu_mode"] = std::string(gpu_mode_name(options.gpu_mode));
    env["gpu_selection"] = describe_selection(options.gpus, options.gpu_inventory);
    // NVML's listing, each GPU confirmed by its worker, or the runtime's (gpu_devices.hpp).
    env["gpu_listing"] = options.gpu_inventory.predicted ? "nvml" : "runtime";
    if (!options.gpu_inventory.notes.empty()) env["gpu_notes"] = options.gpu_inventory.notes;
  }
  const std::string gpu_name = env.contains("gpu") ? env["gpu"].value("name", "") : "";
  identity.device = device_of(env);
  if (claim.had_results)
    check_resume_compatible(manifest.path(), identity, records_exist, options.force_mix);

  // Ceilings: the CPU's, and each GPU's, measured by a child that sees only that GPU; the run
  // keeps a copy of each in its folder.
  const nlohmann::ordered_json calibration =
      calibration_for_run(options.calibration_dir, env, calibration_needs(points, registry, env),
                          options.calibrate, options.out_dir);
  if (interrupt_requested()) return stopped_before_start();
  std::map<int, Ceilings> ceilings;
  ceilings.emplace(DeviceScheduler::kCpuSlot, Ceilings(calibration));
  nlohmann::json gpu_calibrations = nlohmann::json::array();
  for (auto& slot : slots.slots()) {
    if (!slot.gpu || slot.hello.is_null()) continue;
    nlohmann::json slot_env = env;
    slot_env["gpu"] = slot.hello["gpu"];
    const nlohmann::ordered_json c = calibration_for_gpu(
        options.calibration_dir, slot_env, slot.placement, options.calibrate, options.out_dir);
    ceilings.emplace(slot.id, Ceilings(c));
    gpu_calibrations.push_back({{"gpu_index", slot.gpu->index}, {"calibration", c}});
  }
  if (interrupt_requested()) return stopped_before_start();
  spdlog::debug("{:.3f} s: ceilings read", elapsed());
  auto ceilings_of = [&](int slot_id) -> const Ceilings& {
    const auto it = ceilings.find(slot_id);
    return it != ceilings.end() ? it->second : ceilings.at(DeviceScheduler::kCpuSlot);
  };

  manifest.describe(spec, all_points, identity, options.shard_label, env);
  manifest.add("calibration", calibration);
  if (!gpu_calibrations.empty()) manifest.add("gpu_calibrations", gpu_calibrations);
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
    kept = std::move(previous->kept.records);
    done = std::move(previous->kept.done);
    previous.reset();
  }
  // The manifest first: a folder with records always has one (a resume trusts nothing else).
  std::unique_ptr<RecordFiles> files_owner;
  try {
    manifest.write("running", kept);
    files_owner = std::make_unique<RecordFiles>(options.out_dir, options.stem, std::move(kept));
  } catch (const Refused& e) {
    print_quietly([&] {
      fmt::print(stderr, "error: {}\nNothing was run. Make room, then start again with: {}\n",
                 e.what(), resume_command(spec, options));
    });
    return exit_code::kRefused;
  }
  RecordFiles& files = *files_owner;

  RelativeMetrics relative(registry);
  for (const auto& r : files.records()) relative.observe(r);
  std::size_t to_run = 0;
  for (const auto& p : points) to_run += done.count(p.id()) ? 0 : 1;
  if (claim.had_results)
    spdlog::info("resuming: {} points already ok, {} to run{}", done.size(), to_run,
                 files.records().size() > done.size()
                     ? fmt::format(" ({} failed, skipped or invalid before: run again)",
                                   files.records().size() - done.size())
                     : "");

  std::vector<std::string> kinds;
  kinds.reserve(points.size());
  for (const auto& p : points) kinds.push_back(p.kernel + "/" + p.variant);
  Progress progress(options.progress, std::move(kinds));

  // What runs where (runner/run/device_scheduler.hpp). Without GPUs every point goes to the one
  // worker, as ever: its GPU points are skipped there with the reason.
  const bool with_gpus = !options.gpus.empty();
  std::vector<SchedulingUnit> units;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    if (done.count(p.id())) {
      progress.skip(i);
      continue;
    }
    const KernelInfo* k = registry.find(p.kernel);
    const VariantInfo* v = k ? k->find_variant(p.variant) : nullptr;
    const bool on_gpu = with_gpus && v && is_gpu(v->backend);
    units.push_back({i, on_gpu, p.problem_key(), estimated_cost(p, registry),
                     on_gpu && p.gpu ? p.gpu : std::nullopt});
  }
  DeviceScheduler scheduler(std::move(units), static_cast<int>(options.gpus.size()));
  // The CPU slot gives up after this many workers in a row die before their hello (a GPU slot is
  // taken out by the scheduler).
  constexpr int kFailedStartsToGiveUp = 3;
  // Seconds a point may take once a stop was asked for before it is abandoned.
  constexpr double kGraceSeconds = 3.0;

  std::string write_error;
  const OutputWatch watch(options.out_dir);
  std::optional<OutputWatch::Lost> folder_lost;
  PointTimes ran;  // this invocation's points (a resume keeps earlier ones besides)
  std::vector<std::string> taken_out;
  auto warn_taken_out = [&](const std::string& gpu) {
    spdlog::warn("{} is taken out of the run; {}", gpu,
                 options.gpu_mode == GpuMode::each
                     ? "the copies of points pinned to it will be recorded skipped"
                     : "its points move to the other GPUs");
  };
  int idle_rounds = 0;
  auto record_point = [&](DeviceSlots::Slot* slot, std::size_t i, Record r) {
    const Point& p = points[i];
    if (slot && slot->gpu) {
      r["gpu_index"] = slot->gpu->index;
      r["gpu_uuid"] = slot->gpu->uuid;
      r["gpu_bus_id"] = slot->gpu->pci_bus_id;
      r["worker_cpus"] = cpu_list_text(slot->placement.cpus);
    }
    relative.observe(r);
    relative.apply(r);
    ceilings_of(slot ? slot->id : DeviceScheduler::kCpuSlot).apply(r, registry);
    files.append(r);
    progress.start(slots.slots().size() > 1 && slot ? fmt::format("[{}] {}", slot->label(), p.key())
                                                    : p.key());
    progress.finish(i, text_of(r, "status"), number_or(r, "point_s", 0.0));
    ran.add(r);
  };
  try {
    while (true) {
      for (auto& [i, why] : scheduler.take_abandoned()) {
        const Point& p = points[i];
        const KernelInfo* k = registry.find(p.kernel);
        Record r = base_record(spec, p, k ? k->find_variant(p.variant) : nullptr, gpu_name);
        set_status(r, Status::skipped, why);
        r["point_s"] = 0.0;
        record_point(nullptr, i, std::move(r));
      }
      // A folder deleted or moved under the run: stop, saying where the records went.
      if ((folder_lost = watch.check())) break;
      bool assigned = false;
      if (!interrupt_requested()) {
        for (auto& slot : slots.slots()) {
          if (slot.busy() || scheduler.retired(slot.id)) continue;
          if (scheduler.waiting() == 0) break;
          if (!slots.ensure_worker(slot)) {
            if (interrupt_requested()) break;
            if (!slot.gpu) {
              if (slot.starts_failed_in_a_row >= kFailedStartsToGiveUp)
                throw Refused("three worker processes in a row died while starting; giving up" +
                              task_limit_note());
              continue;
            }
            if (scheduler.start_failed(slot.id)) {
              taken_out.push_back(
                  fmt::format("{} ({}): its worker died {} times in a row while "
                              "starting",
                              slot.label(), slot.gpu->uuid, kFailedStartsToGiveUp));
              warn_taken_out(slot.label());
            }
            continue;
          }
          const auto i = scheduler.next(slot.id);
          if (!i) continue;
          slots.send(slot, *i, spec.timeout_s, kGraceSeconds);
          if (slots.slots().size() == 1 || !with_gpus) progress.start(points[*i].key());
          assigned = true;
        }
      }
      if (!slots.any_busy()) {
        if (scheduler.done() || interrupt_requested()) break;
        // Nothing runs and nothing could be handed out twice in a row (abandoned points are
        // recorded on the way): what is left cannot run here.
        idle_rounds = assigned ? 0 : idle_rounds + 1;
        if (idle_rounds > 2) break;
        continue;
      }
      for (auto& [slot, outcome] : slots.wait(100)) {
        const std::size_t i = *slot->point;
        slot->point.reset();
        const Point& p = points[i];
        if (outcome.kind == WorkerProcess::Outcome::interrupted) {
          // A stop signal sent to a worker alone stops the run as one sent to the runner would;
          // its point is left for --resume.
          request_interrupt(outcome.signal > 0 ? outcome.signal : SIGTERM);
          scheduler.finished(slot->id, i, false);
          continue;
        }
        Record r;
        if (outcome.kind == WorkerProcess::Outcome::finished) {
          r = outcome.record;
        } else {
          const KernelInfo* k = registry.find(p.kernel);
          r = base_record(spec, p, k ? k->find_variant(p.variant) : nullptr,
                          slot->hello.is_null() ? gpu_name : gpu_name_of(slot->hello));
          set_status(r, Status::failed,
                     outcome.kind == WorkerProcess::Outcome::timed_out
                         ? outcome.cause
                         : "the point crashed its worker process: " + outcome.cause);
        }
        r["point_s"] =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - slot->started).count();
        const bool fault = slot->gpu && is_device_fault(r);
        record_point(slot, i, std::move(r));
        if (scheduler.finished(slot->id, i, fault))
          taken_out.push_back(fmt::format("{} ({}): {} device errors in a row", slot->label(),
                                          slot->gpu->uuid, DeviceScheduler::kFailuresToRetire));
        if (!taken_out.empty() && scheduler.retired(slot->id)) {
          warn_taken_out(slot->label());
          slot->worker.reset();
        }
      }
    }
  } catch (const Refused& e) {
    // The records cannot be written (a full disk, a quota): stop here, with every record written
    // so far intact (a line cut short is taken back).
    write_error = e.what();
  }
  spdlog::debug("{:.3f} s: points done", elapsed());
  // Points of one run finished out of order on several workers: every comparative figure
  // (speedup, % of the reference) is recomputed over the whole set before the files are final.
  if (slots.slots().size() > 1)
    files.update_records(
        [&](std::vector<Record>& records) { apply_relative_metrics(records, registry); });
  if (!taken_out.empty()) manifest.add("gpus_taken_out", taken_out);
  const double stopping_at = elapsed();
  const int killed = slots.stop_all();
  spdlog::debug("{:.3f} s: the workers of {} slots ended in {:.3f} s ({} killed)", elapsed(),
                slots.slots().size(), elapsed() - stopping_at, killed);
  progress.clear();
  if (folder_lost || (folder_lost = watch.check())) {
    print_quietly([&] { print_folder_lost(*folder_lost, files.records().size(), spec, options); });
    return exit_code::kRefused;
  }
  // The machine's store learns what these points reached (runner/results/stale_ceilings.hpp).
  note_points_against_ceilings(calibration, files.records());
  for (const auto& g : gpu_calibrations)
    note_points_against_ceilings(g["calibration"], files.records());
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
  spdlog::debug("{:.3f} s: files final", elapsed());
  print_quietly([&] {
    print_summary(files.records(), points.size(), stdout, elapsed(), &ran);
    // Never a run on fewer GPUs than asked without saying so where its figures are read.
    for (const auto& gone : taken_out) fmt::print("Taken out of the run: {}\n", gone);
    if (!taken_out.empty()) {
      const std::size_t left = options.gpus.size() - scheduler.retired_slots().size();
      fmt::print("{}\n",
                 left == 0 ? std::string("No GPU was left: the GPU points not run are recorded "
                                         "skipped, with the reason")
                 : options.gpu_mode == GpuMode::each
                     ? fmt::format("The copies of points pinned to it are recorded skipped; the "
                                   "other {} GPU(s) ran theirs",
                                   left)
                     : fmt::format("Its points ran on the other {} GPU(s)", left));
    }
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
    if (text_of(r, "status") == "failed") return exit_code::kPointFailed;
  return exit_code::kOk;
}

}  // namespace runner
