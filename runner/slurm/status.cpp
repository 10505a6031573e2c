#include "runner/slurm/status.hpp"

#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "runner/run/output_dir.hpp"
#include "runner/slurm/array_indices.hpp"
#include "runner/slurm/shard_exit.hpp"
#include "runner/slurm/shard_results.hpp"
#include "runner/slurm/shard_state.hpp"
#include "runner/slurm/slurm_client.hpp"
#include "runner/slurm/slurm_run.hpp"

namespace runner::slurm {

int status_run(const std::filesystem::path& dir) {
  const SlurmRun run = SlurmRun::load(dir);
  const ShardResults results = ShardResults::read(run);
  for (const auto& w : results.warnings) spdlog::warn("{}", w);
  const SlurmClient client;

  fmt::print("{}: experiment {}, {} points in {} shards\n", dir.string(),
             run.document().value("experiment", "?"), run.points().size(), run.num_shards());
  std::map<std::string, std::map<int, JobState>> states;
  for (std::size_t s = 0; s < run.submissions().size(); ++s) {
    const Submission& sub = run.submissions()[s];
    std::vector<std::string> arrays;
    for (const auto& a : sub.arrays) {
      arrays.push_back(fmt::format("{} (shards {})", a.job_id.empty() ? "not submitted" : a.job_id,
                                   format_index_list(a.shards)));
      if (!a.job_id.empty() && !states.count(a.job_id))
        states[a.job_id] = client.array_states(a.job_id);
    }
    std::string collect = "collect not submitted";
    if (!sub.collect_job_id.empty()) {
      const auto c = client.job_state(sub.collect_job_id);
      collect = fmt::format(
          "collect {} {}", sub.collect_job_id,
          c ? fmt::format("{}{}", c->state,
                          c->state == "PENDING" ? " (" + c->reason + ")" : " exit " + c->exit_code)
            : "(no longer known to Slurm)");
    }
    fmt::print("submission {} ({}{}): array {}; {}{}\n", s + 1, sub.submitted,
               sub.resume ? ", resume" : "", fmt::join(arrays, ", "), collect,
               sub.cancelled.empty() ? "" : "; cancelled by runner cancel at " + sub.cancelled);
  }

  fmt::print("\n{:<6} {:<14} {:<12} {:<18} {:>9} {:>6} {:>7} {:>6} {:>8}  {}\n", "shard", "state",
             "job", "slurm", "elapsed", "ok", "failed", "other", "missing", "note");
  std::map<std::string, int> by_state;
  int recorded = 0, ok = 0, failed = 0, other = 0, missing = 0;
  for (const auto& t : results.shards) {
    const auto element = run.latest_element(t.shard);
    std::optional<JobState> job;
    if (element && states.count(element->array_job_id)) {
      const auto& s = states[element->array_job_id];
      if (const auto it = s.find(element->index); it != s.end()) job = it->second;
    }
    const auto exit = element ? read_shard_exit(run.dir(), element->tag()) : std::nullopt;
    const ShardStatus st =
        classify_shard(t, element, job, exit, cancelled_at(run, element, t.shard));
    ++by_state[st.state];
    recorded += t.recorded();
    ok += t.ok;
    failed += t.failed;
    other += t.skipped + t.invalid;
    missing += t.missing;
    const std::string slurm =
        job ? (job->exit_code.empty() || is_active(job->state)
                   ? job->state
                   : fmt::format("{} {}", job->state, job->exit_code))
            : (exit && exit->ended ? fmt::format("exit {}", exit->exit_code) : "-");
    fmt::print("{:<6} {:<14} {:<12} {:<18} {:>9} {:>6} {:>7} {:>6} {:>8}  {}\n", t.shard, st.state,
               element ? element->tag() : "-", slurm,
               job && !job->elapsed.empty() && job->state != "PENDING" ? job->elapsed : "-", t.ok,
               t.failed, t.skipped + t.invalid, t.missing, st.note);
  }
  std::vector<std::string> summary;
  for (const auto& [state, n] : by_state) summary.push_back(fmt::format("{} {}", n, state));
  fmt::print(
      "\nshards: {}\npoints: {} of {} recorded (ok {}, failed {}, skipped/invalid {}), {} "
      "missing\n",
      fmt::join(summary, ", "), recorded, run.points().size(), ok, failed, other, missing);
  if (missing > 0 || failed > 0)
    fmt::print("when nothing is queued any more: runner submit --resume {}\n",
               shell_quote(dir.string()));
  return 0;
}

}  // namespace runner::slurm
