#pragma once
// What else on a host makes a CPU measurement fast or noisy, for the manifest (so that a noisy
// run explains itself) and for the calibration's record: the load, the frequency governor and
// turbo, the caches, the BLAS library the GEMMs call. Read from /proc and /sys; a fact the
// machine does not expose (a VM has no cpufreq) says so instead of being left out.
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace runner {

// /proc/loadavg: the 1, 5 and 15 minute load averages (runnable and uninterruptible tasks, this
// process's threads included); all -1 when unreadable.
std::array<double, 3> load_average();

// Busy and total CPU time of the whole machine (/proc/stat, in clock ticks), and this process's
// with its waited-for children (/proc/self/stat): sampled before and after a measurement,
// their differences say how much of the machine other processes used meanwhile.
struct CpuTimes {
  std::uint64_t machine_busy = 0, machine_total = 0, own = 0;
};
CpuTimes cpu_times();
// Cores' worth of CPU that processes other than this one (and its children) used between two
// samples: 0.0 on an idle machine, 1.0 when another process kept one core busy throughout.
double other_processes_cores(const CpuTimes& before, const CpuTimes& after);
// Seconds since the kernel started this process (/proc/self/stat's starttime; an exec keeps it),
// or nullopt where /proc cannot say.
std::optional<double> seconds_since_process_start();

// The cache hierarchy of CPU 0 (/sys/devices/system/cpu/cpu0/cache): {"L1d": bytes, "L1i": ...,
// "L2": ..., "L3": ...}; empty when not exposed.
nlohmann::ordered_json cache_bytes();
// Bytes of the last-level cache; 0 when unknown.
std::int64_t last_level_cache_bytes();

// {"cpu_governor", "cpu_turbo", "cpu_max_mhz", "caches" (a line), "cache_bytes", "openblas",
// "openblas_core", "load_average"}: the facts above as the manifest's environment holds them.
nlohmann::ordered_json host_facts();

}  // namespace runner
