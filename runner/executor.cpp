#include "runner/executor.hpp"

#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <memory>
#include <new>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "runner/build_info.hpp"
#include "runner/calibration.hpp"
#include "runner/ceilings.hpp"
#include "runner/device_monitor.hpp"
#include "runner/environment.hpp"
#include "runner/errors.hpp"
#include "runner/gpu_info.hpp"
#include "runner/interrupt.hpp"
#include "runner/manifest.hpp"
#include "runner/profiler_range.hpp"
#include "runner/progress.hpp"
#include "runner/relative_metrics.hpp"
#include "runner/results_files.hpp"
#include "runner/sampling.hpp"
#include "runner/summary.hpp"
#include "runner/thread_placement.hpp"
#include "runner/worker_process.hpp"

namespace runner {

namespace {

// The problem (inputs and reference) of the points in flight. Points come grouped by problem, so
// one slot suffices; a new problem frees the old one before allocating (large sizes need it).
class ProblemCache {
 public:
  std::shared_ptr<const Problem> get(const KernelInfo& kernel, const Point& point,
                                     std::uint64_t seed) {
    const std::string key = point.problem_key();
    if (key != key_ || !problem_) {
      problem_.reset();
      key_.clear();
      problem_ = kernel.make_problem(point, seed);
      key_ = key;
    }
    return problem_;
  }

 private:
  std::string key_;
  std::shared_ptr<const Problem> problem_;
};

ProblemCache& problem_cache() {
  static ProblemCache cache;
  return cache;
}

std::int64_t available_host_bytes() {
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::int64_t>(pages) * page : 0;
}

// `gpu` is passed in, never read here: the parent process builds records for points that crashed
// their worker and must not initialise CUDA (a forked child of a CUDA process cannot use CUDA).
Record base_record(const ExperimentSpec& spec, const Point& p, const VariantInfo* v,
                   const std::string& gpu) {
  const Environment& env = environment();
  Record r;
  r["experiment"] = spec.experiment;
  r["point_id"] = p.id();
  r["kernel"] = p.kernel;
  r["variant"] = p.variant;
  r["backend"] = v ? std::string(backend_name(v->backend)) : "";
  r["dtype"] = p.dtype ? nlohmann::ordered_json(std::string(dtype_name(*p.dtype))) : nullptr;
  r["m"] = p.size ? nlohmann::ordered_json(p.size->m) : nullptr;
  r["n"] = p.size ? nlohmann::ordered_json(p.size->n) : nullptr;
  r["k"] = p.size && p.size->k ? nlohmann::ordered_json(p.size->k) : nullptr;
  r["block_x"] = p.block ? nlohmann::ordered_json(p.block->x) : nullptr;
  r["block_y"] = p.block ? nlohmann::ordered_json(p.block->y) : nullptr;
  r["threads"] = p.threads ? nlohmann::ordered_json(*p.threads) : nullptr;
  r["status"] = "ok";
  r["message"] = "";
  for (const char* key :
       {"samples", "time_ms_median", "time_ms_min", "time_ms_mean", "time_ms_stddev", "gflops",
        "gbps", "speedup", "efficiency", "verified", "max_rel_err"})
    r[key] = nullptr;
  r["host"] = env.host;
  r["gpu"] = gpu;
  r["slurm_job_id"] = env.slurm_array_job_id.empty() ? env.slurm_job_id : env.slurm_array_job_id;
  r["slurm_array_task_id"] = env.slurm_array_task_id;
  r["timestamp"] = utc_now();
  if (p.kernel_size) r["kernel_size"] = *p.kernel_size;
  if (p.grid) r["grid"] = *p.grid;
  if (p.print) r["print"] = *p.print;
  r["is_baseline"] = p.is_baseline;
  r["seed"] = spec.seed;
  r["point_key"] = p.key();
  r["node"] = env.slurm_node.empty() ? env.host : env.slurm_node;
  return r;
}

void set_status(Record& r, Status s, const std::string& message) {
  r["status"] = std::string(status_name(s));
  r["message"] = message;
}

}  // namespace

Record run_point(const ExperimentSpec& spec, const Point& point, const Registry& registry) {
  const KernelInfo* kernel = registry.find(point.kernel);
  const VariantInfo* variant = kernel ? kernel->find_variant(point.variant) : nullptr;
  Record r = base_record(spec, point, variant, gpu_info().present ? gpu_info().name : "");
  if (!variant) {
    set_status(r, Status::invalid, "unknown kernel or variant in this binary");
    return r;
  }
  if (!variant->factory) {
    set_status(r, Status::skipped,
               variant->unavailable_reason.empty() ? "not built" : variant->unavailable_reason);
    return r;
  }
  if (variant->backend == Backend::cuda && !gpu_info().present) {
    set_status(r, Status::skipped, "no CUDA device: " + gpu_info().absent_reason);
    return r;
  }
  const Environment& env = environment();
  if (point.threads) {
    omp_set_num_threads(*point.threads);
    if (*point.threads > env.cores) {
      r["oversubscribed"] = true;
      r["message"] =
          fmt::format("oversubscribed: {} threads on {} cores", *point.threads, env.cores);
    }
  }
  const double bytes = kernel->bytes ? kernel->bytes(point) : 0.0;
  // Inputs, a reference in double and the output: about three times the bytes moved.
  const double host_need = 3.0 * bytes;
  if (host_need > static_cast<double>(available_host_bytes()) && available_host_bytes() > 0) {
    set_status(r, Status::skipped,
               fmt::format("needs about {:.1f} GiB of host memory, {:.1f} GiB available",
                           host_need / (1 << 30),
                           static_cast<double>(available_host_bytes()) / (1 << 30)));
    return r;
  }
  const ProfilerRange range("point " + point.id());
  try {
    auto problem = problem_cache().get(*kernel, point, spec.seed);
    auto workload = variant->factory(point, problem);
    MeasureOptions how;
    how.mode = spec.measure.value_or(kernel->measure_mode());
    if (variant->backend == Backend::cuda)
      how.monitor = gpu_monitor();
    else
      r["omp_thread_cpus"] = omp_thread_cpus(point.threads.value_or(1));
    const Measurement m = measure(*workload, spec.repeat, how);
    const Verification& v = m.verification;
    r["verified"] = v.passed;
    r["max_rel_err"] = v.max_rel_err;
    r["verify_tolerance"] = v.tolerance;
    r["reference"] = "cpu-double";
    // Named: items() refers into the object, and a temporary in a range-for initialiser is
    // destroyed before the loop runs.
    const nlohmann::json extra = workload->extra_fields();
    for (const auto& item : extra.items()) r[item.key()] = item.value();
    if (!v.passed) {
      set_status(r, Status::failed, "verification failed: " + v.message);
      return r;
    }
    const SampleStats& s = m.stats;
    r["samples"] = s.samples;
    r["time_ms_median"] = s.median;
    r["time_ms_min"] = s.min;
    r["time_ms_mean"] = s.mean;
    r["time_ms_stddev"] = s.stddev;
    r["time_ms_max"] = s.max;
    r["time_ms_rsd"] = s.rsd;
    r["stop_reason"] = m.stop_reason;
    add_measurement_fields(r, m);
    const double flops = kernel->flops ? kernel->flops(point) : 0.0;
    if (flops > 0 && s.median > 0) r["gflops"] = flops / (s.median * 1e6);
    if (bytes > 0 && s.median > 0) r["gbps"] = bytes / (s.median * 1e6);
    if (flops > 0 && bytes > 0) r["arith_intensity"] = flops / bytes;
  } catch (const PointSkipped& e) {
    set_status(r, Status::skipped, e.what());
  } catch (const PointInvalid& e) {
    set_status(r, Status::invalid, e.what());
  } catch (const std::bad_alloc&) {
    set_status(r, Status::skipped, "not enough host memory for this size");
  } catch (const Interrupted&) {
    throw;
  } catch (const WorkerPoisoned& e) {
    set_status(r, Status::failed, e.what());
    mark_worker_poisoned();
  } catch (const std::exception& e) {
    set_status(r, Status::failed, e.what());
  }
  return r;
}

std::string run_fingerprint(const ExperimentSpec& spec, const std::string& device) {
  return fmt::format("{:016x}",
                     fnv1a64(spec.text + "\n" + build_info::kGitRevision + "\n" + device));
}

namespace {

// The device a run measures, from the environment a worker reported: the GPU's name when the
// config has CUDA points and a GPU is present, else the CPU model.
std::string device_of(const nlohmann::json& env) {
  if (env.contains("gpu") && env["gpu"].value("present", false))
    return env["gpu"].value("name", "");
  return env.value("cpu_model", "");
}

}  // namespace

int run_experiment(const ExperimentSpec& spec, const std::vector<Point>& all_points,
                   const std::vector<Point>& points, const Registry& registry,
                   const RunOptions& options) {
  const auto run_start = std::chrono::steady_clock::now();
  // Points run in a worker process; this process owns the files. Start the first worker now: its
  // hello carries the environment (GPU included) that the manifest and the fingerprint need.
  auto worker = std::make_unique<WorkerProcess>(spec, points, registry);
  if (!worker->hello())
    throw std::runtime_error("the worker process died while starting (initialising CUDA?)");
  const nlohmann::json env = *worker->hello();
  const std::string gpu_name = env.contains("gpu") ? env["gpu"].value("name", "") : "";
  const std::string fingerprint = run_fingerprint(spec, device_of(env));

  const nlohmann::ordered_json calibration = calibration_for_run(
      options.calibration_dir, env, calibration_needs(points, registry, env), options.calibrate);
  const Ceilings ceilings(calibration);

  Manifest manifest(options.out_dir,
                    options.stem == "records" ? "manifest.json" : options.stem + ".manifest.json");
  manifest.describe(spec, all_points, fingerprint, options.shard_label, env);
  manifest.add("calibration", calibration);

  std::vector<Record> kept;
  if (options.resume) {
    std::vector<std::string> warnings;
    const auto previous = Manifest::read_fingerprint(manifest.path());
    if (previous && *previous != fingerprint && !options.force_mix)
      throw std::runtime_error(fmt::format(
          "{} was written by another config, build or device (fingerprint {} here, {} there); "
          "refusing to mix results. Use a new --out, or --force-mix to resume anyway",
          options.out_dir.string(), fingerprint, *previous));
    for (auto& r : read_jsonl(options.out_dir / (options.stem + ".jsonl"), &warnings))
      if (r.value("status", "") == "ok") kept.push_back(std::move(r));
    for (const auto& w : warnings) spdlog::warn("{}", w);
  }
  RecordFiles files(options.out_dir, options.stem);
  files.start_with(kept);
  manifest.write("running", files.records());

  RelativeMetrics relative(registry);
  std::map<std::string, bool> done;
  for (const auto& r : kept) {
    relative.observe(r);
    done[r.value("point_id", "")] = true;
  }
  if (!kept.empty())
    spdlog::info("resuming: {} points already ok, {} to run", kept.size(),
                 points.size() - kept.size());

  Progress progress(options.progress, points.size());
  int exit_code = 0;
  int failed_starts = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    if (done.count(p.id())) {
      progress.skip();
      continue;
    }
    if (interrupt_requested()) break;
    const auto point_start = std::chrono::steady_clock::now();
    if (!worker || !worker->alive()) {
      worker = std::make_unique<WorkerProcess>(spec, points, registry);
      if (!worker->hello() && ++failed_starts >= 3)
        throw std::runtime_error("three worker processes in a row died while starting; giving up");
    }
    progress.start(p.key());
    // Seconds a point may take once a stop was asked for before it is abandoned.
    constexpr double kGraceSeconds = 3.0;
    const WorkerProcess::Outcome outcome = worker->run(i, spec.timeout_s, kGraceSeconds);
    if (outcome.kind == WorkerProcess::Outcome::interrupted) break;
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
    progress.finish(r.value("status", ""));
    if (r.value("status", "") == "failed") exit_code = 1;
  }
  worker.reset();
  progress.clear();
  const bool interrupted = interrupt_requested();
  manifest.write(interrupted ? "interrupted" : "complete", files.records());
  print_summary(
      files.records(), points.size(), stdout,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count());
  if (interrupted) {
    const int sig = interrupt_signal();
    fmt::print(stderr,
               "\nInterrupted by {} after {} of {} points. Records so far are in {}.\n"
               "Resume with: runner {} --out {} --resume{}\n",
               sig == 15 ? "SIGTERM" : "SIGINT", files.records().size(), points.size(),
               options.out_dir.string(), spec.file.string(), options.out_dir.string(),
               options.shard_label.empty() ? "" : " --shard " + options.shard_label);
    return 128 + sig;
  }
  fmt::print("Results: {}\n", options.out_dir.string());
  return exit_code;
}

}  // namespace runner
