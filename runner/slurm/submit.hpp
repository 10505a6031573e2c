#pragma once
#include <optional>
#include <string>
#include <vector>

#include "runner/spec/point_filter.hpp"

namespace runner::slurm {

// `runner submit` as typed: every option is optional, so that the YAML `slurm:` section (first
// submission) or the previous submission (--resume) fills what the command line leaves out.
struct SubmitArguments {
  std::string config;      // the experiment (first submission)
  std::string resume_dir;  // --resume DIR
  std::string out;         // --out DIR
  std::optional<int> tasks, cpus, throttle, gpus_per_task;
  std::optional<std::string> partition, account, qos, time, gres, constraint, job_name;
  std::optional<std::string> mem, exclude;  // "none": no line (drops the YAML's or a resume's)
  std::vector<std::string> sbatch_options;  // after "--": one #SBATCH line each
  bool dry_run = false;                     // render and print, submit nothing
  bool force_mix = false;                   // --resume with another build of the runner
  // --only / --set: the points of the run (recorded in its manifest; the shards get them too).
  PointSelection selection;
};

// Expands the matrix, makes the run directory (config copy, manifest with the plan, rendered
// scripts, logs/), submits the shard array(s) and the collect job, prints their ids and the
// directory, and returns 0. Nothing runs on the login node.
int submit_run(const SubmitArguments& args);

// `runner submit --resume DIR`: resubmits exactly the shards holding missing or failed points
// (skipping shards still queued or running), each with --resume so points already ok are kept,
// followed by a new collect job. Returns 0, also when there is nothing left to do.
int resubmit_run(const SubmitArguments& args);

}  // namespace runner::slurm
