#include "runner/spec/config_keys.hpp"

#include <limits>
#include <stdexcept>

namespace runner {

namespace {

// The largest thread count a config may ask for (threads: and slurm.cpus), as the axis allows.
constexpr std::int64_t kMaxThreads = 4096;

const IntegerKey kIntegerKeys[] = {
    {kRepeatSection, "warmup", 0, 1000},
    {kRepeatSection, "min_samples", 1, 1000000},
    {kRepeatSection, "max_samples", 1, 1000000},
    {kVerifySection, "seed", 0, std::numeric_limits<std::int64_t>::max()},
    {kSlurmSection, "cpus", 1, kMaxThreads},
    {kSlurmSection, "throttle", 1, 1000000},
    {kSlurmSection, "gpus_per_task", 1, 64},
};

const NumberKey kNumberKeys[] = {
    {kRepeatSection, "target_rsd", 0.0, 1.0},
    {kRepeatSection, "min_seconds", 0.0, 86400.0},
    {kRepeatSection, "max_seconds", 0.0, 86400.0},
    {"", "timeout_s", 1.0, 7 * 86400.0},
};

}  // namespace

const std::vector<std::string>& section_keys(std::string_view section) {
  static const std::vector<std::string> top = {
      "experiment", "description", "repeat",  "baseline", "verify", "timeout_s", "sweeps",
      "exclude",    "slurm",       "measure", "plugins",  "gpus",   "gpu_mode"};
  static const std::vector<std::string> repeat = {"warmup",     "min_samples", "max_samples",
                                                  "target_rsd", "min_seconds", "max_seconds"};
  static const std::vector<std::string> verify = {"seed"};
  static const std::vector<std::string> slurm = {
      "partition", "account", "qos", "time",    "gres",  "constraint",   "cpus",
      "throttle",  "extra",   "mem", "exclude", "setup", "gpus_per_task"};
  if (section.empty()) return top;
  if (section == kRepeatSection) return repeat;
  if (section == kVerifySection) return verify;
  if (section == kSlurmSection) return slurm;
  throw std::logic_error("config_keys: no section " + std::string(section));
}

const IntegerKey* integer_key(std::string_view section, std::string_view name) {
  for (const auto& k : kIntegerKeys)
    if (k.section == section && k.name == name) return &k;
  return nullptr;
}

const NumberKey* number_key(std::string_view section, std::string_view name) {
  for (const auto& k : kNumberKeys)
    if (k.section == section && k.name == name) return &k;
  return nullptr;
}

}  // namespace runner
