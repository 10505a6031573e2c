#include "runner/measure/host_facts.hpp"

#include <unistd.h>

#include <ctime>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

// OpenBLAS's own description of itself: version, build options and the kernel it picked for this
// CPU (a DYNAMIC_ARCH build picks at load time, so the core type is the machine's, not the
// build's).
extern "C" char* openblas_get_config(void);
extern "C" char* openblas_get_corename(void);

namespace runner {

namespace {

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  return line;
}

// "32K", "1024K", "32M" as sysfs writes cache sizes.
std::int64_t size_bytes(const std::string& text) {
  if (text.empty()) return 0;
  std::int64_t v = 0;
  try {
    v = std::stoll(text);
  } catch (const std::exception&) {
    return 0;
  }
  switch (text.back()) {
    case 'K':
      return v << 10;
    case 'M':
      return v << 20;
    case 'G':
      return v << 30;
    default:
      return v;
  }
}

std::string size_text(std::int64_t bytes) {
  if (bytes >= (std::int64_t{1} << 20) && bytes % (std::int64_t{1} << 20) == 0)
    return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= (std::int64_t{1} << 20)) return fmt::format("{:.2f} MiB", bytes / 1048576.0);
  return fmt::format("{} KiB", bytes >> 10);
}

// The governors of the CPUs of this machine (all of them: a pinned thread may run on any).
std::string governors() {
  std::set<std::string> seen;
  const long cpus = sysconf(_SC_NPROCESSORS_CONF);
  for (long c = 0; c < cpus; ++c) {
    const std::string g =
        first_line(fmt::format("/sys/devices/system/cpu/cpu{}/cpufreq/scaling_governor", c));
    if (!g.empty()) seen.insert(g);
  }
  if (seen.empty()) return "unknown (no cpufreq in /sys: a VM, or a kernel without it)";
  return fmt::format("{}", fmt::join(seen, ", "));
}

std::string turbo() {
  // intel_pstate says whether turbo is off; acpi-cpufreq and amd-pstate whether boost is on.
  const std::string no_turbo = first_line("/sys/devices/system/cpu/intel_pstate/no_turbo");
  if (!no_turbo.empty()) return no_turbo == "0" ? "on" : "off";
  const std::string boost = first_line("/sys/devices/system/cpu/cpufreq/boost");
  if (!boost.empty()) return boost == "1" ? "on" : "off";
  return "unknown (no intel_pstate/no_turbo or cpufreq/boost in /sys)";
}

// /proc/self/stat from field `first` on (fields counted from 1; the command name, field 2, sits
// in parentheses and may hold spaces, so the fields are counted from its closing one). Empty when
// the file cannot be read.
std::istringstream self_stat_from(int first) {
  const std::string stat = first_line("/proc/self/stat");
  const auto close = stat.rfind(')');
  std::istringstream rest(close == std::string::npos ? std::string() : stat.substr(close + 2));
  std::string skip;
  for (int field = 3; field < first && rest >> skip; ++field) {
  }
  return rest;
}

std::uint64_t sum_fields(std::istringstream& in, int count) {
  std::uint64_t total = 0, v = 0;
  for (int i = 0; i < count && in >> v; ++i) total += v;
  return total;
}

}  // namespace

std::array<double, 3> load_average() {
  std::array<double, 3> load = {-1, -1, -1};
  std::ifstream in("/proc/loadavg");
  if (!(in >> load[0] >> load[1] >> load[2])) load = {-1, -1, -1};
  return load;
}

CpuTimes cpu_times() {
  CpuTimes t;
  {
    // cpu  user nice system idle iowait irq softirq steal ...
    std::istringstream line(first_line("/proc/stat"));
    std::string cpu;
    std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                  steal = 0;
    if (line >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal &&
        cpu == "cpu") {
      t.machine_busy = user + nice + system + irq + softirq + steal;
      t.machine_total = t.machine_busy + idle + iowait;
    }
  }
  {
    // Fields 14-17: utime stime cutime cstime.
    std::istringstream rest = self_stat_from(14);
    t.own = sum_fields(rest, 4);
  }
  return t;
}

std::optional<double> seconds_since_process_start() {
  std::istringstream rest = self_stat_from(22);  // starttime, in clock ticks since boot
  unsigned long long start_ticks = 0;
  if (!(rest >> start_ticks)) return std::nullopt;
  timespec now{};
  if (::clock_gettime(CLOCK_BOOTTIME, &now) != 0) return std::nullopt;
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9 -
         static_cast<double>(start_ticks) / ticks;
}

double other_processes_cores(const CpuTimes& before, const CpuTimes& after) {
  if (after.machine_total <= before.machine_total) return 0;
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const double elapsed_ticks =
      static_cast<double>(after.machine_total - before.machine_total) / std::max(cpus, 1L);
  const double busy = static_cast<double>(after.machine_busy - before.machine_busy);
  const double own = static_cast<double>(after.own - before.own);
  return std::max(0.0, busy - own) / elapsed_ticks;
}

nlohmann::ordered_json cache_bytes() {
  nlohmann::ordered_json caches = nlohmann::ordered_json::object();
  for (int i = 0; i < 16; ++i) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", i);
    const std::string level = first_line(dir + "level");
    if (level.empty()) break;
    const std::string type = first_line(dir + "type");
    const std::string name = "L" + level +
                             (type == "Data"          ? "d"
                              : type == "Instruction" ? "i"
                                                      : "");
    caches[name] = size_bytes(first_line(dir + "size"));
  }
  return caches;
}

std::int64_t last_level_cache_bytes() {
  std::int64_t last = 0;
  const nlohmann::ordered_json caches = cache_bytes();  // named: items() refers into it
  for (const auto& item : caches.items())
    if (item.key() != "L1i") last = item.value().get<std::int64_t>();
  return last;
}

nlohmann::ordered_json host_facts() {
  nlohmann::ordered_json j;
  j["cpu_governor"] = governors();
  j["cpu_turbo"] = turbo();
  const std::string max_khz = first_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  j["cpu_max_mhz"] = max_khz.empty() ? nlohmann::ordered_json(nullptr)
                                     : nlohmann::ordered_json(std::stod(max_khz) / 1000);
  const nlohmann::ordered_json caches = cache_bytes();
  std::vector<std::string> parts;
  for (const auto& item : caches.items())
    parts.push_back(item.key() + " " + size_text(item.value().get<std::int64_t>()));
  j["caches"] =
      parts.empty() ? "unknown (no cache in /sys)" : fmt::format("{}", fmt::join(parts, ", "));
  j["cache_bytes"] = caches;
  const char* config = openblas_get_config();
  const char* core = openblas_get_corename();
  j["openblas"] = config ? config : "";
  j["openblas_core"] = core ? core : "";
  const auto load = load_average();
  j["load_average"] = {load[0], load[1], load[2]};
  return j;
}

}  // namespace runner
