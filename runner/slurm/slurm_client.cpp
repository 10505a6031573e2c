#include "runner/slurm/slurm_client.hpp"

#include <cctype>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "runner/base/child_command.hpp"
#include "runner/slurm/array_indices.hpp"

namespace runner::slurm {

namespace {

// Slurm's client commands (sbatch, scontrol, sacct, scancel), with what to do when they are
// missing.
CommandOutput run_slurm_client(const std::vector<std::string>& argv, double timeout_s = 120) {
  try {
    return run_child_command(argv, timeout_s);
  } catch (const CommandNotFound& e) {
    throw std::runtime_error(fmt::format(
        "{} (is this a Slurm login node? Slurm's client commands must be on PATH)", e.what()));
  }
}

}  // namespace

namespace {

std::string trim(std::string s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

// "CANCELLED by 0" → "CANCELLED" (sacct adds who cancelled it).
std::string state_word(const std::string& s) {
  return s.substr(0, s.find(' '));
}

bool looks_like_key(std::string_view word) {
  if (word.empty() || !std::isalpha(static_cast<unsigned char>(word[0]))) return false;
  for (char c : word)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':' || c == '/'))
      return false;
  return true;
}

JobState state_of(const ScontrolRecord& r) {
  auto get = [&](const char* key) {
    const auto it = r.find(key);
    return it == r.end() || it->second == "(null)" ? std::string() : it->second;
  };
  int restarts = -1;
  try {
    if (const std::string n = get("Restarts"); !n.empty()) restarts = std::stoi(n);
  } catch (const std::exception&) {
  }
  return {state_word(get("JobState")),
          get("Reason"),
          get("ExitCode"),
          get("RunTime"),
          get("NodeList"),
          "scontrol",
          restarts};
}

}  // namespace

bool is_active(const std::string& state) {
  static const char* const kActive[] = {"PENDING",   "RUNNING",      "CONFIGURING", "COMPLETING",
                                        "SUSPENDED", "REQUEUED",     "RESIZING",    "SIGNALING",
                                        "STAGE_OUT", "REQUEUE_HOLD", "REQUEUE_FED", "SPECIAL_EXIT",
                                        "STOPPED"};
  for (const char* s : kActive)
    if (state == s) return true;
  return false;
}

std::optional<std::string> parse_sbatch_job_id(const std::string& parsable_output) {
  // --parsable prints "jobid" or "jobid;cluster"; some sites' wrappers print notices first, so
  // take the last line that starts with a digit.
  std::istringstream in(parsable_output);
  std::optional<std::string> id;
  for (std::string line; std::getline(in, line);) {
    line = trim(line);
    std::size_t n = 0;
    while (n < line.size() && std::isdigit(static_cast<unsigned char>(line[n]))) ++n;
    if (n > 0 && (n == line.size() || line[n] == ';')) id = line.substr(0, n);
  }
  return id;
}

std::optional<std::string> parse_config_value(const std::string& show_config,
                                              const std::string& key) {
  std::istringstream in(show_config);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq == std::string::npos || trim(line.substr(0, eq)) != key) continue;
    return trim(line.substr(eq + 1));
  }
  return std::nullopt;
}

std::optional<int> parse_max_array_tasks(const std::string& scheduler_parameters) {
  // A comma-separated list of words and key=value pairs; Slurm reads the first match.
  std::istringstream in(scheduler_parameters);
  for (std::string item; std::getline(in, item, ',');) {
    item = trim(item);
    const std::string key = "max_array_tasks=";
    if (item.rfind(key, 0) != 0) continue;
    const std::string value = item.substr(key.size());
    if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    try {
      return std::stoi(value);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<ArrayLimits> parse_array_limits(const std::string& show_config) {
  const auto size = parse_config_value(show_config, "MaxArraySize");
  if (!size) return std::nullopt;
  ArrayLimits limits;
  try {
    limits.max_array_size = std::stoi(*size);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  // "(null)" when none are set.
  if (const auto params = parse_config_value(show_config, "SchedulerParameters"))
    limits.max_array_tasks = parse_max_array_tasks(*params).value_or(0);
  return limits;
}

std::vector<ScontrolRecord> parse_scontrol_records(const std::string& text) {
  std::vector<ScontrolRecord> records;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (trim(line).empty()) continue;
    ScontrolRecord record;
    std::string* last = nullptr;
    std::istringstream words(line);
    for (std::string word; words >> word;) {
      const auto eq = word.find('=');
      if (eq != std::string::npos && looks_like_key(std::string_view(word).substr(0, eq))) {
        last = &(record[word.substr(0, eq)] = word.substr(eq + 1));
      } else if (last) {
        *last += " " + word;  // a value with spaces (Comment=..., a job name)
      }
    }
    if (!record.empty()) records.push_back(std::move(record));
  }
  return records;
}

std::map<int, JobState> array_states_from_scontrol(const std::vector<ScontrolRecord>& records) {
  std::map<int, JobState> states;
  for (const auto& r : records) {
    const auto task = r.find("ArrayTaskId");
    if (task == r.end() || task->second == "(null)" || task->second.empty()) continue;
    std::vector<int> indices;
    try {
      indices = parse_index_list(task->second);
    } catch (const std::invalid_argument&) {
      continue;
    }
    for (int i : indices) states[i] = state_of(r);
  }
  return states;
}

std::map<int, JobState> array_states_from_sacct(const std::string& text,
                                                const std::string& array_job_id) {
  // Lines of `sacct -n -P -X -o JobID,State,ExitCode,Elapsed,NodeList,Reason`.
  std::map<int, JobState> states;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cols;
    std::istringstream fields(line);
    for (std::string f; std::getline(fields, f, '|');) cols.push_back(f);
    if (cols.size() < 6) continue;
    const std::string prefix = array_job_id + "_";
    if (cols[0].rfind(prefix, 0) != 0) continue;
    std::string list = cols[0].substr(prefix.size());
    if (!list.empty() && list.front() == '[') list = list.substr(1, list.find(']') - 1);
    std::vector<int> indices;
    try {
      indices = parse_index_list(list);
    } catch (const std::invalid_argument&) {
      continue;
    }
    const JobState s{state_word(cols[1]),
                     cols[5],
                     cols[2],
                     cols[3],
                     cols[4] == "None assigned" ? "" : cols[4],
                     "sacct"};
    for (int i : indices) states[i] = s;
  }
  return states;
}

std::string SlurmClient::submit(const std::filesystem::path& script,
                                const std::vector<std::string>& options) const {
  std::vector<std::string> argv = {"sbatch", "--parsable"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back(script.string());
  const CommandOutput r = run_slurm_client(argv);
  const auto id = parse_sbatch_job_id(r.out);
  if (r.exit_code != 0 || !id) {
    const std::string why = trim(r.err.empty() ? r.out : r.err);
    throw std::runtime_error(
        fmt::format("{} failed{}: {}", command_line(argv),
                    r.timed_out ? " (timed out)" : fmt::format(" (exit {})", r.exit_code),
                    why.empty() ? "no job id printed" : why));
  }
  return *id;
}

std::optional<ArrayLimits> SlurmClient::array_limits() const {
  const CommandOutput r = run_slurm_client({"scontrol", "show", "config"}, 60);
  if (r.exit_code != 0) return std::nullopt;
  return parse_array_limits(r.out);
}

std::map<int, JobState> SlurmClient::array_states(const std::string& array_job_id) const {
  const CommandOutput r = run_slurm_client({"scontrol", "-o", "show", "job", array_job_id}, 60);
  if (r.exit_code == 0) {
    auto states = array_states_from_scontrol(parse_scontrol_records(r.out));
    if (!states.empty()) return states;
  }
  // The controller forgot the job (MinJobAge) or never knew it: ask accounting, which fails
  // quickly ("accounting storage is disabled") where there is none.
  const CommandOutput a = run_slurm_client({"sacct", "-n", "-P", "-X", "-j", array_job_id, "-o",
                                            "JobID,State,ExitCode,Elapsed,NodeList,Reason"},
                                           60);
  if (a.exit_code != 0) return {};
  return array_states_from_sacct(a.out, array_job_id);
}

std::optional<JobState> SlurmClient::job_state(const std::string& job_id) const {
  const CommandOutput r = run_slurm_client({"scontrol", "-o", "show", "job", job_id}, 60);
  if (r.exit_code == 0)
    for (const auto& record : parse_scontrol_records(r.out))
      if (record.count("JobId") && record.at("JobId") == job_id) return state_of(record);
  const CommandOutput a = run_slurm_client({"sacct", "-n", "-P", "-X", "-j", job_id, "-o",
                                            "JobID,State,ExitCode,Elapsed,NodeList,Reason"},
                                           60);
  if (a.exit_code != 0) return std::nullopt;
  std::istringstream in(a.out);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cols;
    std::istringstream fields(line);
    for (std::string f; std::getline(fields, f, '|');) cols.push_back(f);
    if (cols.size() >= 6 && cols[0] == job_id)
      return JobState{state_word(cols[1]), cols[5], cols[2], cols[3], cols[4], "sacct"};
  }
  return std::nullopt;
}

void SlurmClient::cancel(const std::vector<std::string>& job_ids) const {
  if (job_ids.empty()) return;
  std::vector<std::string> argv = {"scancel"};
  argv.insert(argv.end(), job_ids.begin(), job_ids.end());
  const CommandOutput r = run_slurm_client(argv, 60);
  if (r.exit_code == 0) return;
  // Between the state query and scancel a job may have ended; scancel then says so and exits 1.
  std::istringstream in(r.err);
  bool only_ended = !r.timed_out;
  for (std::string line; std::getline(in, line);)
    if (!trim(line).empty() && line.find("already completing or completed") == std::string::npos &&
        line.find("Invalid job id specified") == std::string::npos)
      only_ended = false;
  if (!only_ended)
    throw std::runtime_error(
        fmt::format("{} failed{}: {}", command_line(argv),
                    r.timed_out ? " (timed out)" : fmt::format(" (exit {})", r.exit_code),
                    trim(r.err.empty() ? r.out : r.err)));
}

}  // namespace runner::slurm
