#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace runner {

// How much host memory a point may still take, and what limits it: the free memory of the
// machine (MemAvailable), the memory limit of the process's cgroup (what Slurm's --mem sets), and
// the address space left under `ulimit -v` (RLIMIT_AS). A point that needs more is skipped at
// once with "out of memory: needs N GB" instead of dying, or spinning, half-way.
struct HostMemory {
  std::int64_t available_bytes = 0;  // the smallest of the limits below; 0 when none is known
  std::string limited_by;            // "free memory", "cgroup memory limit", "ulimit -v"
};
HostMemory host_memory_available();

// Address space left under RLIMIT_AS (limit minus what this process has mapped); nullopt without
// a limit.
std::optional<std::int64_t> address_space_headroom();

// OpenBLAS gives each of its threads a work buffer of 128 MiB of address space (Debian's and
// Ubuntu's builds: BUFFER_SIZE 32 << 22), plus a thread stack. Under `ulimit -v` a thread that
// cannot map its buffer retries forever at 100 % CPU, deaf to SIGTERM: never start more threads
// than fit.
inline constexpr std::int64_t kOpenBlasBytesPerThread = (std::int64_t{128} << 20) + (16 << 20);
// How many of `wanted` OpenBLAS threads fit in the address space left (at least 0).
int openblas_threads_that_fit(int wanted);

// "3.2 GB" (10^9 bytes, one decimal) for messages.
std::string format_gb(double bytes);

}  // namespace runner
