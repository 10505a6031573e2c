// Slurm subcommands: submit (and submit --resume), status, collect, cancel. See docs/slurm.md.
#include <CLI/CLI.hpp>

#include "runner/cli/commands.hpp"
#include "runner/slurm/cancel.hpp"
#include "runner/slurm/collect.hpp"
#include "runner/slurm/status.hpp"
#include "runner/slurm/submit.hpp"

namespace runner::cli {

namespace {

// What the parser fills; CLI11 2.1 has no optional<> support to rely on, so the options keep their
// Option* and "given" is option->count().
struct SlurmCommandLine {
  CLI::App *submit = nullptr, *status = nullptr, *collect = nullptr, *cancel = nullptr;
  std::string config, resume_dir, out, partition, account, qos, time, gres, constraint, job_name;
  std::string mem, exclude;
  int tasks = 0, cpus = 0, throttle = 0, gpus_per_task = 0;
  std::vector<std::string> sbatch_options;
  bool dry_run = false, force_mix = false, collect_force_mix = false;
  std::map<std::string, CLI::Option*> given;
  std::string status_dir, collect_dir, cancel_dir;
  PointSelection selection;
};

SlurmCommandLine& command_line() {
  static SlurmCommandLine c;
  return c;
}

template <typename T>
std::optional<T> if_given(const SlurmCommandLine& c, const std::string& name, const T& value) {
  const auto it = c.given.find(name);
  return it != c.given.end() && it->second->count() > 0 ? std::optional<T>(value) : std::nullopt;
}

slurm::SubmitArguments submit_arguments(const SlurmCommandLine& c) {
  slurm::SubmitArguments a;
  a.config = c.config;
  a.resume_dir = c.resume_dir;
  a.out = c.out;
  a.sbatch_options = c.sbatch_options;
  // After "--", CLI11 fills the CONFIG slot first: with --resume that word is the first sbatch
  // option.
  if (!a.resume_dir.empty() && !a.config.empty() && a.config[0] == '-') {
    a.sbatch_options.insert(a.sbatch_options.begin(), a.config);
    a.config.clear();
  }
  a.tasks = if_given(c, "tasks", c.tasks);
  a.cpus = if_given(c, "cpus", c.cpus);
  a.throttle = if_given(c, "throttle", c.throttle);
  a.gpus_per_task = if_given(c, "gpus-per-task", c.gpus_per_task);
  a.partition = if_given(c, "partition", c.partition);
  a.account = if_given(c, "account", c.account);
  a.qos = if_given(c, "qos", c.qos);
  a.time = if_given(c, "time", c.time);
  a.gres = if_given(c, "gres", c.gres);
  a.constraint = if_given(c, "constraint", c.constraint);
  a.mem = if_given(c, "mem", c.mem);
  a.exclude = if_given(c, "exclude", c.exclude);
  a.job_name = if_given(c, "job-name", c.job_name);
  a.dry_run = c.dry_run;
  a.force_mix = c.force_mix;
  a.selection = c.selection;
  return a;
}

}  // namespace

void add_slurm_commands(CLI::App& app) {
  SlurmCommandLine& c = command_line();
  c.submit = app.add_subcommand(
      "submit",
      "Submit a config to Slurm as a job array of shards plus a collect job (or --resume a run)");
  auto* s = c.submit;
  s->add_option("config", c.config, "Experiment config (YAML); not with --resume");
  s->add_option("sbatch_options", c.sbatch_options,
                "After --: further sbatch options, one #SBATCH line each");
  s->add_option("--resume", c.resume_dir,
                "Resubmit the shards of run DIR that hold missing or failed points");
  s->add_option("--out", c.out,
                "Results directory (default results/<experiment>/<UTC time>-<host>)");
  auto add = [&](const std::string& name, auto& value, const std::string& help) {
    c.given[name] = s->add_option("--" + name, value, help);
  };
  add("tasks", c.tasks, "Number of shards = array elements (default 1)");
  add("partition", c.partition, "Partition (slurm.partition)");
  add("account", c.account, "Account (slurm.account)");
  add("qos", c.qos, "QOS (slurm.qos)");
  add("time", c.time, "Time limit per shard, Slurm syntax (slurm.time; default 01:00:00)");
  add("gres", c.gres,
      "Generic resources per shard, 'none' for none (slurm.gres; default gpu:1 with CUDA points)");
  add("cpus", c.cpus,
      "Cores per shard = OMP_NUM_THREADS (slurm.cpus; default the largest threads value)");
  add("constraint", c.constraint, "Node features (slurm.constraint)");
  add("mem", c.mem,
      "Memory per shard: 16G, 4000M, 0 for all of the node's; 'none' for no line (slurm.mem)");
  add("exclude", c.exclude,
      "Nodes to avoid, a Slurm hostlist such as node[01-03],gpu7; 'none' for no line "
      "(slurm.exclude)");
  add("throttle", c.throttle, "At most this many shards at once, %P (slurm.throttle)");
  add("gpus-per-task", c.gpus_per_task,
      "GPUs per shard, #SBATCH --gpus-per-task; the shard spreads its points over them "
      "(slurm.gpus_per_task; default: --gres gpu:1 with CUDA points)");
  add("job-name", c.job_name, "Slurm job name (default runner-<experiment>)");
  add_selection_options(*s, c.selection);
  s->add_flag("--dry-run", c.dry_run,
              "Render the scripts into the results directory and print the sbatch commands");
  s->add_flag("--force-mix", c.force_mix,
              "With --resume: accept a runner of another revision or an edited config.yaml (the "
              "shards and the collect job get --force-mix too)");

  c.status = app.add_subcommand("status",
                                "Show the shards of a submitted run: Slurm state and points done");
  c.status->add_option("dir", c.status_dir, "Results directory made by runner submit")->required();
  c.collect =
      app.add_subcommand("collect", "Merge the shards of a submitted run into records.jsonl/.csv");
  c.collect->add_option("dir", c.collect_dir, "Results directory made by runner submit")
      ->required();
  c.collect->add_flag("--force-mix", c.collect_force_mix,
                      "Merge shards that ran different configs or builds (with a warning)");
  c.cancel = app.add_subcommand(
      "cancel", "Cancel every shard array and collect job of a submitted run (scancel)");
  c.cancel->add_option("dir", c.cancel_dir, "Results directory made by runner submit")->required();
}

int run_slurm_command(CLI::App&) {
  const SlurmCommandLine& c = command_line();
  if (c.submit && *c.submit) {
    const slurm::SubmitArguments args = submit_arguments(c);
    if (args.resume_dir.empty() && args.config.empty())
      throw CLI::ValidationError("submit", "needs a CONFIG, or --resume DIR");
    // Mistakes in what was asked (bad --tasks, a path with spaces) are usage errors: exit 2.
    try {
      return args.resume_dir.empty() ? slurm::submit_run(args) : slurm::resubmit_run(args);
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("submit", e.what());
    }
  }
  if (c.status && *c.status) return slurm::status_run(c.status_dir);
  if (c.collect && *c.collect) return slurm::collect_run(c.collect_dir, c.collect_force_mix);
  if (c.cancel && *c.cancel) return slurm::cancel_run(c.cancel_dir);
  return -1;
}

}  // namespace runner::cli
