#include "runner/slurm/submit.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "runner/build_info.hpp"
#include "runner/config.hpp"
#include "runner/environment.hpp"
#include "runner/manifest.hpp"
#include "runner/matrix.hpp"
#include "runner/registry.hpp"
#include "runner/results_files.hpp"
#include "runner/slurm/array_indices.hpp"
#include "runner/slurm/array_plan.hpp"
#include "runner/slurm/child_process.hpp"
#include "runner/slurm/run_lock.hpp"
#include "runner/slurm/sbatch_template.hpp"
#include "runner/slurm/shard_results.hpp"
#include "runner/slurm/slurm_client.hpp"
#include "runner/slurm/slurm_run.hpp"

namespace runner::slurm {

namespace {

constexpr const char* kDefaultTime = "01:00:00";
// Slurm's default MaxArraySize, assumed when scontrol does not answer.
constexpr int kDefaultMaxArraySize = 1001;

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot read", file.string()));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::filesystem::path runner_executable() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw std::runtime_error("cannot find the runner executable (/proc/self/exe): " + ec.message());
  return exe;
}

// Command-line values win over `base` (the YAML section, or the previous submission).
JobSettings override_with(JobSettings s, const SubmitArguments& a) {
  if (a.partition) s.partition = *a.partition;
  if (a.account) s.account = *a.account;
  if (a.qos) s.qos = *a.qos;
  if (a.time) s.time = *a.time;
  if (a.gres) s.gres = *a.gres == "none" ? "" : *a.gres;
  if (a.constraint) s.constraint = *a.constraint;
  if (a.job_name) s.job_name = *a.job_name;
  if (a.cpus) s.cpus = *a.cpus;
  if (a.throttle) s.throttle = *a.throttle;
  if (!a.sbatch_options.empty()) s.extra = a.sbatch_options;
  return s;
}

// The first submission's settings: YAML `slurm:` section, then the command line, then defaults
// that follow from the matrix. One array serves every point, so a shard gets the union of what
// its points may need: a GPU when the matrix has CUDA variants (the CPU baselines then run on the
// GPU node's cores, next to the kernels they are compared with), and as many cores as the largest
// `threads` value.
JobSettings first_settings(const ExperimentSpec& spec, const std::vector<Point>& points,
                           const SubmitArguments& a) {
  JobSettings s;
  if (spec.slurm) {
    s.partition = spec.slurm->partition;
    s.account = spec.slurm->account;
    s.qos = spec.slurm->qos;
    s.time = spec.slurm->time;
    s.gres = spec.slurm->gres;
    s.constraint = spec.slurm->constraint;
    s.cpus = spec.slurm->cpus;
    s.throttle = spec.slurm->throttle;
    s.extra = spec.slurm->extra;
  }
  const bool gres_given = a.gres || (spec.slurm && !spec.slurm->gres.empty());
  s = override_with(s, a);
  if (s.time.empty()) s.time = kDefaultTime;
  if (s.job_name.empty()) s.job_name = "runner-" + spec.experiment;
  bool any_cuda = false;
  int max_threads = 1;
  for (const auto& p : points) {
    const KernelInfo* k = Registry::instance().find(p.kernel);
    const VariantInfo* v = k ? k->find_variant(p.variant) : nullptr;
    if (v && v->backend == Backend::cuda) any_cuda = true;
    if (p.threads) max_threads = std::max(max_threads, *p.threads);
  }
  if (!gres_given && any_cuda) s.gres = "gpu:1";
  if (s.gres == "none") s.gres.clear();  // `gres: none` in the YAML, like --gres none
  if (s.cpus <= 0) s.cpus = max_threads;
  if (s.cpus < max_threads)
    spdlog::warn(
        "points use up to {} threads but each shard gets {} cpus: the larger thread counts will "
        "share cores (their records say oversubscribed where Slurm binds tasks to cores)",
        max_threads, s.cpus);
  return s;
}

void check_settings(const JobSettings& s) {
  for (const auto& [value, what] : {std::pair{s.partition, "partition"},
                                    {s.account, "account"},
                                    {s.qos, "qos"},
                                    {s.time, "time"},
                                    {s.gres, "gres"},
                                    {s.constraint, "constraint"},
                                    {s.job_name, "job name"}})
    require_plain_value(value, what);
  if (s.cpus < 1)
    throw std::invalid_argument(fmt::format("--cpus must be at least 1, got {}", s.cpus));
  if (s.throttle < 0)
    throw std::invalid_argument(fmt::format("--throttle must be positive, got {}", s.throttle));
}

std::string read_template(const std::string& name) {
  const auto file = jobs_dir() / name;
  if (!std::filesystem::exists(file))
    throw std::runtime_error(
        fmt::format("{}: template not found (set RUNNER_JOBS_DIR to the folder holding "
                    "shard.sbatch and collect.sbatch)",
                    file.string()));
  return read_text(file);
}

struct RenderedSubmission {
  Submission submission;
  std::vector<std::pair<std::filesystem::path, std::string>> files;  // path → content
};

// Fills jobs/shard.sbatch for each array and jobs/collect.sbatch once.
RenderedSubmission render(const SlurmRun& run, Submission sub, const std::string& runner_args,
                          const std::string& collect_script) {
  const std::filesystem::path runner = runner_executable();
  require_plain_path(run.dir(), "results directory");
  require_plain_path(runner, "runner executable");
  const JobSettings& s = sub.settings;
  const std::map<std::string, std::string> common = {
      {"job_name", s.job_name},
      {"out_dir", run.dir().string()},
      {"runner", runner.string()},
      {"partition_line", sbatch_line("--partition", s.partition)},
      {"account_line", sbatch_line("--account", s.account)},
      {"qos_line", sbatch_line("--qos", s.qos)},
      {"extra_lines", sbatch_extra_lines(s.extra)},
  };
  const std::string shard_template = read_template("shard.sbatch");
  const std::string collect_template = read_template("collect.sbatch");

  RenderedSubmission out;
  for (const auto& a : sub.arrays) {
    auto fields = common;
    fields["array"] = a.array;
    fields["time"] = s.time;
    fields["cpus"] = std::to_string(s.cpus);
    fields["num_shards"] = std::to_string(run.num_shards());
    fields["config"] = run.config_copy().string();
    fields["runner_args"] = runner_args;
    fields["shard_map"] = a.shard_map.empty() ? "" : (run.dir() / a.shard_map).string();
    fields["gres_line"] = sbatch_line("--gres", s.gres);
    fields["constraint_line"] = sbatch_line("--constraint", s.constraint);
    out.files.emplace_back(run.dir() / a.script,
                           render_template(shard_template, fields, "jobs/shard.sbatch"));
    if (!a.shard_map.empty()) {
      std::string map;
      for (int shard : a.shards) map += std::to_string(shard) + "\n";
      out.files.emplace_back(run.dir() / a.shard_map, map);
    }
  }
  out.files.emplace_back(run.dir() / collect_script,
                         render_template(collect_template, common, "jobs/collect.sbatch"));
  sub.collect_script = collect_script;
  out.submission = std::move(sub);
  return out;
}

int max_array_size(const SlurmClient& client, bool dry_run) {
  std::optional<int> m;
  try {
    m = client.max_array_size();
  } catch (const std::exception& e) {
    if (!dry_run) throw;
    spdlog::info("{}", e.what());
  }
  if (!m) {
    spdlog::warn(
        "cannot read MaxArraySize from `scontrol show config`; assuming Slurm's default {}",
        kDefaultMaxArraySize);
    return kDefaultMaxArraySize;
  }
  return *m;
}

std::string shards_text(const std::vector<int>& shards) {
  return format_index_list(shards);
}

// Submits every array, then the collect job after all of them; records each job id as soon as
// sbatch gives it, so a failure half-way leaves an exact account in manifest.json.
void submit_jobs(SlurmRun& run, std::size_t index, const SlurmClient& client) {
  Submission& sub = run.submissions()[index];
  std::vector<std::string> array_ids;
  try {
    for (std::size_t a = 0; a < sub.arrays.size(); ++a) {
      std::vector<std::string> options;
      // Several arrays under one throttle run one after the other, so %P stays the whole limit.
      if (sub.settings.throttle > 0 && a > 0)
        options.push_back("--dependency=afterany:" + sub.arrays[a - 1].job_id);
      sub.arrays[a].job_id = client.submit(run.dir() / sub.arrays[a].script, options);
      array_ids.push_back(sub.arrays[a].job_id);
      run.save();
    }
    sub.collect_job_id =
        client.submit(run.dir() / sub.collect_script,
                      {fmt::format("--dependency=afterany:{}", fmt::join(array_ids, ":"))});
    run.save();
  } catch (const std::exception& e) {
    run.save();
    if (array_ids.empty())
      throw std::runtime_error(
          fmt::format("{}\nnothing was submitted. After fixing the cause, submit this plan "
                      "with `runner submit --resume {}` (options such as --partition or --time "
                      "may be given again), or remove {}",
                      e.what(), run.dir().string(), run.dir().string()));
    throw std::runtime_error(
        fmt::format("{}\nalready submitted: array job(s) {}. Cancel them with `scancel {}`, "
                    "or fix the problem and run `runner submit --resume {}` (it leaves queued "
                    "shards alone) and `runner collect {}` when they end",
                    e.what(), fmt::join(array_ids, ", "), fmt::join(array_ids, " "),
                    run.dir().string(), run.dir().string()));
  }
}

void write_files(const RenderedSubmission& r) {
  for (const auto& [path, content] : r.files) write_file_atomically(path, content);
}

void print_plan(const SlurmRun& run, const Submission& sub, bool dry_run) {
  for (const auto& a : sub.arrays) {
    const std::string what =
        a.shard_map.empty() ? fmt::format("shards {}", shards_text(a.shards))
                            : fmt::format("shards {} via {}", shards_text(a.shards), a.shard_map);
    if (dry_run)
      fmt::print("would run: {}   # {}\n",
                 command_line({"sbatch", "--parsable", (run.dir() / a.script).string()}), what);
    else
      fmt::print("array job {}: {} (--array={})\n", a.job_id, what, a.array);
  }
  if (dry_run)
    fmt::print("would run: {}\n",
               command_line({"sbatch", "--parsable", "--dependency=afterany:<array job ids>",
                             (run.dir() / sub.collect_script).string()}));
  else
    fmt::print("collect job {}: runs `runner collect` when the array has ended (afterany)\n",
               sub.collect_job_id);
  fmt::print("results: {}\n", run.dir().string());
  if (!dry_run) fmt::print("watch with: runner status {}\n", run.dir().string());
}

std::filesystem::path absolute_clean(const std::filesystem::path& p) {
  return std::filesystem::absolute(p).lexically_normal();
}

}  // namespace

int submit_run(const SubmitArguments& args) {
  const ExperimentSpec spec = load_config(args.config);
  const std::vector<Point> points = expand(spec, Registry::instance());
  const int tasks = args.tasks.value_or(1);
  if (tasks < 1 || static_cast<std::size_t>(tasks) > points.size())
    throw std::invalid_argument(
        fmt::format("--tasks {}: the matrix has {} points, so 1 to {} shards (an empty "
                    "shard would be a job with nothing to do)",
                    tasks, points.size(), points.size()));
  JobSettings settings = first_settings(spec, points, args);
  check_settings(settings);

  const std::filesystem::path out =
      absolute_clean(args.out.empty() ? std::filesystem::path("results") / spec.experiment /
                                            fmt::format("{}-{}", utc_now(true), environment().host)
                                      : std::filesystem::path(args.out));
  require_plain_path(out, "results directory");
  if (std::filesystem::exists(out / "manifest.json"))
    throw std::invalid_argument(
        fmt::format("{} holds a run already: resubmit its missing points with `runner submit "
                    "--resume {}`, or choose another --out",
                    out.string(), out.string()));

  // The plan: every point with its shard. Shards recompute the same assignment from the config
  // copy (deterministic), and the manifest keeps it so status / collect need no expansion.
  const std::vector<int> assignment = shard_assignment(points, tasks, Registry::instance());
  nlohmann::ordered_json point_list = Manifest::point_list(points);
  for (std::size_t i = 0; i < points.size(); ++i) point_list[i]["shard"] = assignment[i];

  const SlurmClient client;
  const int max_array = max_array_size(client, args.dry_run);
  nlohmann::ordered_json doc;
  doc["experiment"] = spec.experiment;
  doc["created"] = utc_now();
  doc["config_file"] = absolute_clean(spec.file).string();
  doc["state"] = args.dry_run ? "dry-run" : "submitted";
  doc["config"] = spec.as_json;
  doc["config_text"] = spec.text;
  doc["runner_version"] = build_info::kVersion;
  doc["runner_revision"] = build_info::kGitRevision;
  doc["submit_host"] = environment().host;
  doc["points"] = point_list;
  doc["slurm"] = {{"num_shards", tasks},
                  {"runner", runner_executable().string()},
                  {"config", (out / "config.yaml").string()},
                  {"max_array_size", max_array}};
  SlurmRun run(out, doc);

  std::vector<int> all(static_cast<std::size_t>(tasks));
  for (int i = 0; i < tasks; ++i) all[static_cast<std::size_t>(i)] = i;
  Submission sub;
  sub.submitted = utc_now();
  sub.settings = settings;
  sub.arrays = plan_arrays(all, max_array, settings.throttle, "");
  const RenderedSubmission rendered = render(run, sub, "", "slurm/collect.sbatch");

  // Slurm does not create the folder of --output: logs/ must exist before sbatch.
  for (const char* d : {"logs", "slurm", "shards"}) std::filesystem::create_directories(out / d);
  write_file_atomically(run.config_copy(), spec.text);
  write_files(rendered);
  fmt::print("{}: {} points in {} shards; each shard: {} cpus{}, time {}{}\n", spec.experiment,
             points.size(), tasks, settings.cpus,
             settings.gres.empty() ? "" : ", gres " + settings.gres, settings.time,
             settings.partition.empty() ? "" : ", partition " + settings.partition);
  run.submissions().push_back(rendered.submission);
  if (args.dry_run) {
    print_plan(run, run.submissions().back(), true);
    return 0;
  }
  run.save();
  submit_jobs(run, 0, client);
  print_plan(run, run.submissions().back(), false);
  return 0;
}

int resubmit_run(const SubmitArguments& args) {
  const std::filesystem::path dir = absolute_clean(args.resume_dir);
  RunLock lock(dir);
  SlurmRun run = SlurmRun::load(dir);
  if (args.tasks && *args.tasks != run.num_shards())
    throw std::invalid_argument(
        fmt::format("--tasks {}: this run has {} shards, and shard numbers must keep their "
                    "meaning on --resume (a new shard count means a new run)",
                    *args.tasks, run.num_shards()));
  if (!args.config.empty() || !args.out.empty())
    throw std::invalid_argument(
        "--resume DIR takes the config and directory of the run: give no CONFIG or --out");
  if (run.submissions().empty())
    throw std::runtime_error(fmt::format("{}: no submission recorded", dir.string()));

  // The shards re-derive their points from the config copy; make sure this binary derives the
  // plan that was submitted, or --resume would run (and skip) the wrong points.
  const ExperimentSpec spec = load_config(run.config_copy());
  const std::vector<Point> points = expand(spec, Registry::instance());
  const std::vector<int> assignment =
      shard_assignment(points, run.num_shards(), Registry::instance());
  bool same_plan = points.size() == run.points().size();
  for (std::size_t i = 0; same_plan && i < points.size(); ++i)
    same_plan =
        points[i].id() == run.points()[i].point_id && assignment[i] == run.points()[i].shard;
  if (!same_plan)
    throw std::runtime_error(
        fmt::format("this runner ({}) expands or shards {} differently from the one that "
                    "submitted the run ({}): the kernels or the cost model changed. Resume with "
                    "that build, or start a new run",
                    build_info::kGitRevision, run.config_copy().string(),
                    run.document().value("runner_revision", "?")));
  const std::string revision = run.document().value("runner_revision", "");
  if (revision != build_info::kGitRevision && !args.force_mix)
    throw std::runtime_error(
        fmt::format("this runner is revision {}, the run was submitted by {}: resumed shards "
                    "would refuse to mix records of two builds. Use that build, or --force-mix "
                    "to accept the mix",
                    build_info::kGitRevision, revision));

  const ShardResults results = ShardResults::read(run);
  for (const auto& w : results.warnings) spdlog::warn("{}", w);
  const SlurmClient client;
  std::map<std::string, std::map<int, JobState>> states;  // array job id → index → state
  std::vector<int> to_run;
  std::vector<std::string> still_queued;
  for (const auto& t : results.shards) {
    if (!t.needs_rerun()) continue;
    if (const auto e = run.latest_element(t.shard); e && !e->array_job_id.empty()) {
      if (!states.count(e->array_job_id))
        states[e->array_job_id] = client.array_states(e->array_job_id);
      const auto& s = states[e->array_job_id];
      if (const auto it = s.find(e->index); it != s.end() && is_active(it->second.state)) {
        still_queued.push_back(fmt::format("{} ({} {})", t.shard, e->tag(), it->second.state));
        continue;
      }
    }
    to_run.push_back(t.shard);
  }
  if (!still_queued.empty())
    fmt::print("left alone, still queued or running: shard {}\n",
               fmt::join(still_queued, ", shard "));
  if (to_run.empty()) {
    fmt::print("nothing to resubmit: {}\n",
               still_queued.empty()
                   ? "every point has a record and none failed (runner collect " + dir.string() +
                         " merges them)"
                   : "wait for the queued shards, then run runner status " + dir.string());
    return 0;
  }

  Submission sub;
  sub.submitted = utc_now();
  sub.resume = true;
  sub.settings = override_with(run.submissions().back().settings, args);
  check_settings(sub.settings);
  const std::size_t number = run.submissions().size();
  const std::string suffix = fmt::format(".resume{}", number);
  const int max_array = max_array_size(client, args.dry_run);
  run.document()["slurm"]["max_array_size"] = max_array;
  sub.arrays = plan_arrays(to_run, max_array, sub.settings.throttle, suffix);
  const RenderedSubmission rendered =
      render(run, sub, args.force_mix ? "--resume --force-mix" : "--resume",
             fmt::format("slurm/collect{}.sbatch", suffix));
  write_files(rendered);
  int missing = 0, failed = 0;
  for (int s : to_run) {
    missing += results.shards[static_cast<std::size_t>(s)].missing;
    failed += results.shards[static_cast<std::size_t>(s)].failed;
  }
  fmt::print("resubmitting {} of {} shards ({}): {} missing and {} failed points\n", to_run.size(),
             run.num_shards(), format_index_list(to_run), missing, failed);
  run.submissions().push_back(rendered.submission);
  if (args.dry_run) {
    print_plan(run, run.submissions().back(), true);
    return 0;
  }
  run.document()["state"] = "submitted";
  run.save();
  submit_jobs(run, number, client);
  print_plan(run, run.submissions().back(), false);
  return 0;
}

}  // namespace runner::slurm
