#include "runner/base/host_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>

namespace runner {

namespace {

std::optional<std::int64_t> read_number(const std::string& file) {
  std::ifstream in(file);
  std::string word;
  if (!(in >> word) || word == "max") return std::nullopt;
  try {
    const long long v = std::stoll(word);
    // cgroup v1 writes "no limit" as a huge page-aligned number.
    if (v <= 0 || v >= (std::int64_t{1} << 60)) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<std::int64_t> mem_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  long long kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return std::int64_t{kib} * 1024;
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return std::int64_t{pages} * page;
  return std::nullopt;
}

// Limit minus usage of this process's memory cgroup (v2 or v1), if it has a limit.
std::optional<std::int64_t> cgroup_headroom() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    // "0::/path" (v2) or "4:memory:/path" (v1)
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    const bool v2 = controllers.empty();
    if (!v2 && controllers.find("memory") == std::string::npos) continue;
    // The cgroup path as seen from inside a cgroup namespace may not exist below the mount: then
    // the mount's root is this process's cgroup.
    for (const std::string& base : {v2 ? "/sys/fs/cgroup" + path : "/sys/fs/cgroup/memory" + path,
                                    std::string(v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory")}) {
      const auto limit = read_number(base + (v2 ? "/memory.max" : "/memory.limit_in_bytes"));
      if (!limit) continue;
      const auto usage = read_number(base + (v2 ? "/memory.current" : "/memory.usage_in_bytes"));
      return std::max<std::int64_t>(0, *limit - usage.value_or(0));
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::int64_t> address_space_headroom() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_AS, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return std::nullopt;
  std::ifstream in("/proc/self/statm");
  long long pages = 0;
  in >> pages;
  const std::int64_t mapped = std::int64_t{pages} * sysconf(_SC_PAGESIZE);
  return std::max<std::int64_t>(0, static_cast<std::int64_t>(lim.rlim_cur) - mapped);
}

HostMemory host_memory_available() {
  HostMemory m;
  auto consider = [&](std::optional<std::int64_t> bytes, const char* what) {
    if (bytes && (m.limited_by.empty() || *bytes < m.available_bytes)) {
      m.available_bytes = *bytes;
      m.limited_by = what;
    }
  };
  consider(mem_available_bytes(), "free memory");
  consider(cgroup_headroom(), "cgroup memory limit");
  consider(address_space_headroom(), "ulimit -v");
  return m;
}

int openblas_threads_that_fit(int wanted) {
  const auto headroom = address_space_headroom();
  if (!headroom) return wanted;
  // Keep a quarter of the headroom for the point's own data and everything else.
  const std::int64_t fit = (*headroom * 3 / 4) / kOpenBlasBytesPerThread;
  return static_cast<int>(std::clamp<std::int64_t>(fit, 0, wanted));
}

std::string format_gb(double bytes) {
  return fmt::format("{:.1f} GB", bytes / 1e9);
}

}  // namespace runner
