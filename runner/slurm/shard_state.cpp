#include "runner/slurm/shard_state.hpp"

#include <fmt/format.h>

namespace runner::slurm {

namespace {

// Slurm's own verdicts on an element that ended, with what to do about them.
std::optional<std::string> killed_by_slurm(const JobState& job) {
  if (job.state == "NODE_FAIL")
    return fmt::format("node failure{}: resume; add --exclude <node> if it recurs",
                       job.node.empty() ? "" : " of " + job.node);
  if (job.state == "PREEMPTED") return std::string("preempted by another job: resume");
  if (job.state == "BOOT_FAIL") return std::string("the node failed to boot: resume");
  if (job.state == "OUT_OF_MEMORY")
    return std::string(
        "out of memory: resume with a larger --mem (--mem 0: all of the node's) or smaller sizes");
  if (job.state == "TIMEOUT")
    return std::string("hard time limit before the runner drained: resume with a longer --time");
  if (job.state == "DEADLINE") return std::string("its deadline passed: resume");
  return std::nullopt;
}

// "requeued 2x, attempt 3" for an element Slurm restarted; "" for a first attempt. While the
// element waits (or the killed attempt is still completing) the next attempt has not begun.
std::string attempt_note(int restarts, const std::optional<JobState>& job) {
  if (restarts <= 0) return "";
  if (job && is_active(job->state) && job->state != "RUNNING")
    return fmt::format("requeued {}x", restarts);
  return fmt::format("requeued {}x, attempt {}", restarts, restarts + 1);
}

std::string joined(const std::string& a, const std::string& b) {
  return a.empty() ? b : b.empty() ? a : a + "; " + b;
}

}  // namespace

std::optional<std::string> cancelled_at(const SlurmRun& run,
                                        const std::optional<ShardElement>& element, int shard) {
  if (!element || element->submission >= run.submissions().size()) return std::nullopt;
  const Submission& sub = run.submissions()[element->submission];
  if (sub.cancelled.empty()) return std::nullopt;
  for (int s : sub.cancelled_shards)
    if (s == shard) return sub.cancelled;
  return std::nullopt;
}

namespace {

// What became of a cancelled shard's records, from its .exit file.
std::string cancel_note(const ShardTally& t, const std::string& when,
                        const std::optional<ShardExit>& exit) {
  const std::string kept =
      fmt::format("{} record{} kept", t.recorded(), t.recorded() == 1 ? "" : "s");
  const std::string what = t.recorded() == 0 ? "before its first record"
                           : exit && exit->ended && (exit->exit_code == 143 || exit->drained)
                               ? "drained, " + kept
                               : kept;
  return fmt::format("runner cancel at {}, {}", when, what);
}

}  // namespace

ShardStatus classify_shard(const ShardTally& t, const std::optional<ShardElement>& element,
                           const std::optional<JobState>& job, std::optional<ShardExit> exit,
                           const std::optional<std::string>& cancelled) {
  const int restarts = job && job->restarts >= 0 ? job->restarts : exit ? exit->restarts : 0;
  // A requeued element keeps its job id and index: lines of an earlier attempt than the one
  // Slurm reports describe that attempt, not this one.
  if (exit && job && job->restarts >= 0 && exit->restarts < job->restarts) exit.reset();
  const std::string requeued = attempt_note(restarts, job);
  if (job && job->state == "PENDING")
    return {"pending", joined(requeued, job->reason == "None" ? "" : job->reason)};
  if (job && is_active(job->state))
    return {"running", joined(requeued, job->state == "RUNNING" ? "" : job->state)};
  if (t.missing == 0)
    return {t.failed > 0 ? "failed-points" : "done",
            joined(t.failed > 0 ? "see the records' message" : "", requeued)};
  // Cancelled by the user, not lost: whatever Slurm and the .exit file then say (CANCELLED,
  // drained 143, a start line only, or nothing for an element cancelled while pending).
  if (cancelled) return {"cancelled", cancel_note(t, *cancelled, exit) + ": resume to finish"};
  if (job)
    if (const auto why = killed_by_slurm(*job)) return {"killed", joined(*why, requeued)};
  if (exit && !exit->ended)
    return {"killed",
            joined(fmt::format("attempt {} started{} and did not end by itself", exit->restarts + 1,
                               exit->node.empty() ? "" : " on " + exit->node),
                   job ? job->state : "")};
  // The batch shell forwards any SIGTERM: Slurm's time-limit warning, or a plain scancel (which
  // sends SIGTERM before SIGKILL). Slurm's state tells them apart: CANCELLED, or FAILED 143.
  if (exit && (exit->exit_code == 143 || exit->drained))
    return {"interrupted",
            joined(job && job->state == "CANCELLED" ? "scancel'ed, drained: resume"
                                                    : "drained at the time limit: resume",
                   requeued)};
  // A runner that ends by itself with 0 has recorded every point: an exit 0 with points missing
  // is srun's, for a runner it lost (a node failure Slurm no longer remembers).
  if (exit && exit->exit_code == 0)
    return {"killed",
            "srun returned 0 with points missing: the node failed or the element was "
            "requeued under it"};
  if (exit)
    return {"failed",
            fmt::format("runner exit {}: see logs/{}.err", exit->exit_code, element->tag())};
  if (job)
    return {"killed", fmt::format("{} {}", job->state, job->reason == "None" ? "" : job->reason)};
  if (!element || element->array_job_id.empty()) return {"missing", "never submitted"};
  if (t.recorded() > 0 || !t.state.empty())
    return {"killed", "no job record left: killed or purged"};
  return {"missing", "cancelled before it started, or purged"};
}

std::string missing_reason(const ShardTally& tally, const std::optional<ShardElement>& element,
                           const std::optional<ShardExit>& e,
                           const std::optional<std::string>& cancelled) {
  if (!element) return "never submitted";
  if (element->array_job_id.empty()) return "submission did not complete";
  if (cancelled) return "cancelled: " + cancel_note(tally, *cancelled, e);
  if (e) {
    const std::string attempt =
        e->restarts > 0 ? fmt::format(" (attempt {}: requeued {}x)", e->restarts + 1, e->restarts)
                        : "";
    if (!e->ended)
      return fmt::format(
          "started{}{} and did not end by itself: still running, or killed (time limit, "
          "scancel, node failure, memory)",
          e->node.empty() ? "" : " on " + e->node, attempt);
    if (e->exit_code == 143 || e->drained)
      return "drained after SIGTERM (time limit, scancel or requeue; exit 143)" + attempt;
    // A runner that ends by itself with 0 has recorded every point.
    if (e->exit_code == 0)
      return "srun returned 0 with points missing: the node failed, or the element was "
             "requeued, under the runner" +
             attempt;
    return fmt::format("ended with exit {}{}", e->exit_code, attempt);
  }
  if (tally.state == "running" || tally.recorded() > 0)
    return "running, or killed (time limit, scancel, node, memory)";
  return "not started, or cancelled before it started";
}

}  // namespace runner::slurm
