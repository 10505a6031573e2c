#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runner/slurm/array_plan.hpp"

namespace runner::slurm {

// What Slurm says about one job or array element.
struct JobState {
  std::string state;   // PENDING, RUNNING, COMPLETED, FAILED, TIMEOUT, CANCELLED, OUT_OF_MEMORY ...
  std::string reason;  // why pending (Dependency, JobArrayTaskLimit, Resources ...), or "None"
  std::string exit_code;  // "0:0", "143:0", "0:15" (exit status:signal)
  std::string elapsed;    // run time so far, [D-]HH:MM:SS
  std::string node;       // node list; empty while pending
  std::string source;     // "scontrol" or "sacct": where it came from
  // How often Slurm requeued the element (node failure, preemption, `scontrol requeue`): the
  // current attempt is number restarts + 1. -1 when unknown (sacct has no such field).
  int restarts = -1;
};

// Still in the queue or on a node: neither resubmit nor call it lost.
bool is_active(const std::string& state);

// One record of `scontrol -o show job` as key → value (values may hold spaces: Comment=a b).
using ScontrolRecord = std::map<std::string, std::string>;

// Parsers of the clients' output, kept apart from the commands so they can be tested on text.
std::optional<std::string> parse_sbatch_job_id(
    const std::string& parsable_output);  // "123" / "123;cluster"
std::optional<std::string> parse_config_value(const std::string& show_config,
                                              const std::string& key);
// max_array_tasks=N of a SchedulerParameters value ("batch_sched_delay=0,max_array_tasks=100");
// nullopt when it is not there.
std::optional<int> parse_max_array_tasks(const std::string& scheduler_parameters);
// MaxArraySize and SchedulerParameters' max_array_tasks of `scontrol show config`; nullopt when
// MaxArraySize is not there (not Slurm's output).
std::optional<ArrayLimits> parse_array_limits(const std::string& show_config);
std::vector<ScontrolRecord> parse_scontrol_records(const std::string& text);
// index → state for the elements of one array job, from scontrol records (pending elements come
// as one record with ArrayTaskId=2-7%2) or from `sacct -P` lines (JobID 123_4, 123_[2-7%2]).
std::map<int, JobState> array_states_from_scontrol(const std::vector<ScontrolRecord>& records);
std::map<int, JobState> array_states_from_sacct(const std::string& text,
                                                const std::string& array_job_id);

// The Slurm client commands `runner submit / status` need: sbatch, scontrol, sacct, squeue.
class SlurmClient {
 public:
  // sbatch --parsable [options] SCRIPT → the job id. Throws std::runtime_error with sbatch's own
  // message when it refuses (bad partition, account, limits ...).
  std::string submit(const std::filesystem::path& script,
                     const std::vector<std::string>& options) const;
  // The cluster's limits on job arrays (`scontrol show config`): MaxArraySize, which array
  // indices must stay below, and max_array_tasks, the most elements of one array. nullopt when
  // scontrol does not answer.
  std::optional<ArrayLimits> array_limits() const;
  // States of the elements of an array job: scontrol while the controller remembers the job
  // (MinJobAge, often 5 minutes after the end), else sacct where accounting runs. An element
  // cancelled while pending is in neither (without accounting it leaves no trace at all).
  std::map<int, JobState> array_states(const std::string& array_job_id) const;
  // State of an ordinary job (the collect job); nullopt when Slurm no longer knows it.
  std::optional<JobState> job_state(const std::string& job_id) const;
  // scancel JOB...: every element of an array job id, pending or running (a running one gets
  // SIGTERM first, then SIGKILL after the site's KillWait). A job that ended meanwhile is not an
  // error; anything else scancel refuses throws std::runtime_error with its message.
  void cancel(const std::vector<std::string>& job_ids) const;
};

}  // namespace runner::slurm
