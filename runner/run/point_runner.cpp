// The worker's side of a point: builds its problem (cached across the points that share it), its
// workload, measures it and turns the measurement into a record (runner/run/point_runner.hpp).
#include "runner/run/point_runner.hpp"
#include "runner/spec/axes.hpp"

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
#include "runner/api/gpu/runtime_name.hpp"
#include "runner/api/gpu_info.hpp"
#include "runner/api/openblas_pool.hpp"
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
#include "runner/results/columns.hpp"
#include "runner/results/manifest.hpp"
#include "runner/results/measurement_columns.hpp"
#include "runner/results/record_files.hpp"
#include "runner/results/relative_metrics.hpp"
#include "runner/results/summary.hpp"
#include "runner/run/output_dir.hpp"
#include "runner/run/progress.hpp"
#include "runner/run/resume.hpp"
#include "runner/run/worker_process.hpp"

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

}  // namespace

Record base_record(const ExperimentSpec& spec, const Point& p, const VariantInfo* v,
                   const std::string& gpu) {
  const Environment& env = environment();
  Record r;
  r["experiment"] = spec.experiment;
  r["point_id"] = p.id();
  axis_columns(r, p);  // kernel, variant, dtype, m, n, k, block_x, block_y, threads, ...
  r["backend"] = v ? std::string(backend_name(v->backend)) : "";
  r["status"] = "ok";
  r["message"] = "";
  r["host"] = env.host;
  r["gpu"] = gpu;
  r["slurm_job_id"] = env.slurm_array_job_id.empty() ? env.slurm_job_id : env.slurm_array_job_id;
  r["slurm_array_task_id"] = env.slurm_array_task_id;
  r["timestamp"] = utc_now();
  r["is_baseline"] = p.is_baseline;
  r["seed"] = spec.seed;
  r["point_key"] = p.key();
  r["node"] = env.slurm_node.empty() ? env.host : env.slurm_node;
  r["plugin"] = v ? v->plugin : "";
  // An OpenMP point says whether it has more threads than cores either way, also when it failed
  // or was skipped: an empty cell would read as "not known", not as "no".
  if (p.threads) r["oversubscribed"] = *p.threads > env.cores;
  // Every other column stays empty until the point is measured (canonical_record adds them).
  return r;
}

void set_status(Record& r, Status s, const std::string& message) {
  r["status"] = std::string(status_name(s));
  r["message"] = message;
}

namespace {

Record measure_point(const ExperimentSpec& spec, const Point& point, const Registry& registry) {
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
  if (is_gpu(variant->backend) && !gpu_info().present) {
    set_status(r, Status::skipped,
               fmt::format("no {} device: {}", gpu::kRuntimeName, gpu_info().absent_reason));
    return r;
  }
  const Environment& env = environment();
  if (point.threads) {
    omp_set_num_threads(*point.threads);
    if (*point.threads > env.cores) {
      r["message"] =
          fmt::format("oversubscribed: {} threads on {} cores", *point.threads, env.cores);
    }
  }
  const double bytes = kernel->bytes ? kernel->bytes(point) : 0.0;
  // A CPU point holds its inputs, a reference in double and the output on the host: about three
  // times the bytes moved. A GPU point builds its problem on the device (its host side only
  // where the device has no room for the reference: an allocation failure then skips it).
  const double host_need = variant->backend == Backend::cpu ? 3.0 * bytes : 0.0;
  const HostMemory memory = host_memory_available();
  auto out_of_memory = [&](const char* how) {
    return fmt::format(
        "out of memory: needs about {} of host memory{}, {} available ({})", format_gb(host_need),
        how, format_gb(static_cast<double>(memory.available_bytes)),
        memory.limited_by.empty() ? "no limit known" : "limited by " + memory.limited_by);
  };
  if (!memory.limited_by.empty() && host_need > static_cast<double>(memory.available_bytes)) {
    set_status(r, Status::skipped, out_of_memory(""));
    return r;
  }
  // Under `ulimit -u`, the point's threads beside the worker's main and watchdog threads and the
  // OpenBLAS pool (libgomp ends the process when it cannot start a thread; threads of an earlier
  // point's team are reused).
  if (const auto why =
          point.threads ? threads_do_not_fit(*point.threads + 1 + openblas_pool_threads(),
                                             fmt::format("a point of {} threads", *point.threads))
                        : std::nullopt) {
    set_status(r, Status::skipped, *why);
    return r;
  }
  const ProfilerRange range("point " + point.id());
  try {
    const auto setup_start = std::chrono::steady_clock::now();
    auto problem = problem_cache().get(*kernel, point, spec.seed);
    MeasureOptions how;
    how.mode = spec.measure.value_or(kernel->measure_mode());
    Point built = point;  // outlives the workload, which may keep a reference to it
    built.measure = how.mode;
    auto workload = variant->factory(built, problem);
    r["setup_s"] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count();
    if (is_gpu(variant->backend))
      how.monitor = gpu_monitor();
    else
      r["omp_thread_cpus"] = omp_thread_cpus(point.threads.value_or(1));
    const Measurement m = measure(*workload, spec.repeat, how);
    const Verification& v = m.verification;
    r["verified"] = v.passed;
    r["max_rel_err"] = v.max_rel_err;
    r["verify_tolerance"] = v.tolerance;
    r["reference"] = "cpu-double";
    r["verify_s"] = m.verify_s;
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
    set_status(r, Status::skipped, out_of_memory(" (an allocation failed)"));
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

}  // namespace

Record run_point(const ExperimentSpec& spec, const Point& point, const Registry& registry) {
  Record r = measure_point(spec, point, registry);
  try {
    return canonical_record(r, UnknownFields::refuse);
  } catch (const std::logic_error& e) {
    // A workload that reports a field the column table lacks: a bug of the variant, reported on
    // its point rather than lost in a log.
    Record failed = base_record(spec, point, nullptr, text_of(r, "gpu"));
    failed["backend"] = text_of(r, "backend");
    set_status(failed, Status::failed, e.what());
    return canonical_record(failed, UnknownFields::refuse);
  }
}

}  // namespace runner
