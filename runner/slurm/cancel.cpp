#include "runner/slurm/cancel.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runner/base/errors.hpp"
#include "runner/measure/environment.hpp"
#include "runner/run/output_dir.hpp"
#include "runner/slurm/array_indices.hpp"
#include "runner/slurm/run_lock.hpp"
#include "runner/slurm/slurm_client.hpp"

namespace runner::slurm {

namespace {

// "2 RUNNING, 1 PENDING" for the elements of an array that are still queued or running.
std::string active_summary(const std::map<int, JobState>& states) {
  std::map<std::string, int> by_state;
  for (const auto& [index, s] : states)
    if (is_active(s.state)) ++by_state[s.state];
  std::vector<std::string> parts;
  for (const auto& [state, n] : by_state) parts.push_back(fmt::format("{} {}", n, state));
  return fmt::format("{}", fmt::join(parts, ", "));
}

// The run of DIR, or a UsageError: cancel has nothing to do with a folder no submit made.
SlurmRun load_submitted(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw UsageError(fmt::format("{}: no such results directory", dir.string()));
  SlurmRun run = [&] {
    try {
      return SlurmRun::load(dir);
    } catch (const std::exception& e) {
      throw UsageError(fmt::format("{}: nothing to cancel", e.what()));
    }
  }();
  for (const auto& t : cancel_targets(run))
    if (!t.job_id.empty()) return run;
  throw UsageError(fmt::format(
      "{}: no job was submitted (a --dry-run, or a submission sbatch refused): nothing to "
      "cancel",
      dir.string()));
}

}  // namespace

std::vector<CancelTarget> cancel_targets(const SlurmRun& run) {
  std::vector<CancelTarget> targets;
  for (std::size_t s = 0; s < run.submissions().size(); ++s)
    if (!run.submissions()[s].collect_job_id.empty())
      targets.push_back({s, run.submissions()[s].collect_job_id, true, {}});
  for (std::size_t s = 0; s < run.submissions().size(); ++s)
    for (const auto& a : run.submissions()[s].arrays)
      if (!a.job_id.empty()) targets.push_back({s, a.job_id, false, a.shards});
  return targets;
}

int cancel_run(const std::filesystem::path& given) {
  const std::filesystem::path dir = std::filesystem::absolute(given).lexically_normal();
  load_submitted(dir);  // before the lock, which would create DIR/slurm/.lock in any folder
  // `collect` and `submit --resume` rewrite the manifest under this lock too.
  RunLock lock(dir);
  SlurmRun run = load_submitted(dir);
  const SlurmClient client;

  std::vector<std::string> collect_ids, array_ids, cancelled, ended;
  std::map<std::size_t, std::set<int>> active_shards;  // submission → shards still queued/running
  bool any_running = false;
  for (const auto& t : cancel_targets(run)) {
    const std::string of = fmt::format("submission {}", t.submission + 1);
    if (t.collect) {
      const auto state = client.job_state(t.job_id);
      if (state && is_active(state->state)) {
        collect_ids.push_back(t.job_id);
        cancelled.push_back(fmt::format("collect job {} ({}; {})", t.job_id, of, state->state));
      } else {
        ended.push_back(fmt::format("collect job {} ({}): {}", t.job_id, of,
                                    state ? state->state : "no longer known to Slurm"));
      }
      continue;
    }
    const auto states = client.array_states(t.job_id);
    const std::string active = active_summary(states);
    if (!active.empty()) {
      array_ids.push_back(t.job_id);
      const auto array = std::find_if(run.submissions()[t.submission].arrays.begin(),
                                      run.submissions()[t.submission].arrays.end(),
                                      [&](const ArrayJob& a) { return a.job_id == t.job_id; });
      for (const auto& [index, s] : states)
        if (const auto shard = array->shard_at(index); shard && is_active(s.state)) {
          active_shards[t.submission].insert(*shard);
          any_running = any_running || s.state != "PENDING";
        }
      cancelled.push_back(fmt::format("array job {} ({}; shards {}: {})", t.job_id, of,
                                      format_index_list(t.shards), active));
    } else {
      ended.push_back(fmt::format("array job {} ({}, shards {}): {}", t.job_id, of,
                                  format_index_list(t.shards),
                                  states.empty() ? "no longer known to Slurm" : "ended"));
    }
  }

  const std::string quoted = shell_quote(dir.string());
  if (cancelled.empty()) {
    std::string when;
    for (const auto& s : run.submissions())
      if (!s.cancelled.empty()) when = s.cancelled;
    fmt::print("nothing to cancel: every job of {} has ended{}\n", dir.string(),
               when.empty() ? "" : fmt::format(" (cancelled by runner cancel at {})", when));
    for (const auto& e : ended) fmt::print("  {}\n", e);
    return 0;
  }
  // The collect jobs first, in a scancel of their own: see cancel_targets.
  client.cancel(collect_ids);
  client.cancel(array_ids);

  const std::string now = utc_now();
  for (const auto& [s, shards] : active_shards) {
    Submission& sub = run.submissions()[s];
    sub.cancelled = now;
    std::set<int> all(sub.cancelled_shards.begin(), sub.cancelled_shards.end());
    all.insert(shards.begin(), shards.end());
    sub.cancelled_shards.assign(all.begin(), all.end());
  }
  run.document()["state"] = "cancelled";
  run.save();

  for (const auto& c : cancelled) fmt::print("cancelled {}\n", c);
  for (const auto& e : ended) fmt::print("already ended: {}\n", e);
  if (any_running)
    fmt::print(
        "running shards got SIGTERM: they drain (their records are kept) and end within the "
        "site's KillWait\n");
  fmt::print(
      "runner status {} shows them cancelled; runner submit --resume {} runs what is "
      "missing\n",
      quoted, quoted);
  return 0;
}

}  // namespace runner::slurm
