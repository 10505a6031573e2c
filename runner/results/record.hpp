#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace runner {

// One point's result: a flat JSON object whose keys are the CSV columns. The same object is a
// line of records.jsonl and a row of records.csv, so the two files can never disagree.
using Record = nlohmann::ordered_json;

enum class Status { ok, failed, skipped, invalid };
std::string_view status_name(Status s);

// Columns every CSV starts with, in this order (the contract with spreadsheets and analysis/).
// Units are in the names: time_ms_* are milliseconds of kernel time, gflops is 1e9 FLOP/s, gbps is
// 1e9 bytes/s of the fewest bytes the kernel must move.
inline const std::vector<std::string_view> kRequiredColumns = {
    "experiment", "point_id", "kernel", "variant", "backend", "dtype", "m", "n", "k",
    "block_x", "block_y", "threads", "status", "message", "samples", "time_ms_median",
    "time_ms_min", "time_ms_mean", "time_ms_stddev", "gflops", "gbps", "speedup", "efficiency",
    "verified", "max_rel_err", "host", "gpu", "slurm_job_id", "slurm_array_task_id", "timestamp"};

// Further columns, in this order when present; anything else follows alphabetically.
//  kernel_size, grid, print   axes of conv2d and hello
//  is_baseline                 the point speedup is measured against
//  oversubscribed              more OpenMP threads than cores
//  time_ms_max, time_ms_rsd    more statistics; rsd = stddev / mean
//  stop_reason                 rsd | time | max_samples: why sampling stopped
//  measure, launches_per_sample  cold | hot, and executions per sample (docs/measurement.md)
//  noise_warning               the rsd stayed above repeat.target_rsd ("" when it settled)
//  timed_s, point_s            seconds inside the clock (kept samples, every execution), and the
//                              point's wall time from the runner's side (set-up, reference,
//                              warm-ups, verification, flushes included): their ratio is the
//                              runner's overhead
//  guard_timeouts, discarded_samples  CUDA: launch guards that timed out; samples retaken because
//                              the SM clock was below 75 % of its default
//  sm_clock_mhz, gpu_temp_c, gpu_power_w  CUDA, from NVML: mean SM clock of the samples, then
//                              temperature and power after the last one
//  omp_thread_cpus             CPU: the CPU of each OpenMP thread, thread 0 first
//  arith_intensity             flops / bytes of the point (the roofline's x)
//  pct_peak_bw, pct_peak_flops  gbps and gflops in % of the measured ceilings (runner calibrate)
//  pct_theoretical_bw          gbps in % of memory clock × bus width × 2 (CUDA)
//  h2d_ms, d2h_ms              host-to-device / device-to-host copy time (never in time_ms_*)
//  pct_of_copy                 gbps over the `copy` variant's gbps, same problem, same run
//  verify_tolerance, reference tolerance and what the output was compared with
//  seed, point_key, node       input seed, readable point description, host that ran it
inline const std::vector<std::string_view> kKnownExtraColumns = {
    "kernel_size", "grid", "print", "is_baseline", "oversubscribed", "time_ms_max", "time_ms_rsd",
    "stop_reason", "measure", "launches_per_sample", "noise_warning", "timed_s", "point_s", "guard_timeouts",
    "discarded_samples", "sm_clock_mhz", "gpu_temp_c", "gpu_power_w", "omp_thread_cpus",
    "arith_intensity", "pct_peak_bw", "pct_peak_flops", "pct_theoretical_bw", "h2d_ms", "d2h_ms", "pct_of_copy", "verify_tolerance", "reference", "seed",
    "point_key", "node"};

// Columns of a CSV holding these records: the required ones, then the extra ones present.
std::vector<std::string> csv_columns(const std::vector<Record>& records);

// RFC 4180: a field with a comma, quote, CR or LF is quoted and its quotes doubled.
std::string csv_escape(std::string_view field);
// A JSON value as a CSV cell: null → empty, strings unquoted (then escaped), numbers as JSON.
std::string csv_cell(const nlohmann::ordered_json& value);
// Whole CSV text: header row, then one row per record, CRLF line ends as RFC 4180 says.
std::string to_csv(const std::vector<Record>& records);

// Key identifying the problem a record belongs to (kernel, dtype, size, kernel_size), for matching
// a point with its baseline and ceiling.
std::string problem_key_of(const Record& r);

}  // namespace runner
