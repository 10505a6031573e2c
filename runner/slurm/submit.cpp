#include "runner/slurm/submit.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "runner/api/registry.hpp"
#include "runner/base/build_info.hpp"
#include "runner/base/child_command.hpp"
#include "runner/base/errors.hpp"
#include "runner/measure/environment.hpp"
#include "runner/plugin/plugins.hpp"
#include "runner/results/manifest.hpp"
#include "runner/results/record_files.hpp"
#include "runner/run/output_dir.hpp"
#include "runner/run/resume_selection.hpp"
#include "runner/slurm/array_indices.hpp"
#include "runner/slurm/array_plan.hpp"
#include "runner/slurm/run_lock.hpp"
#include "runner/slurm/sbatch_template.hpp"
#include "runner/slurm/shard_results.hpp"
#include "runner/slurm/slurm_client.hpp"
#include "runner/slurm/slurm_run.hpp"
#include "runner/spec/config.hpp"
#include "runner/spec/matrix.hpp"
#include "runner/spec/slurm_values.hpp"

namespace runner::slurm {

namespace {

constexpr const char* kDefaultTime = "01:00:00";

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
  if (a.mem) s.mem = *a.mem == "none" ? "" : *a.mem;
  if (a.exclude) s.exclude = *a.exclude == "none" ? "" : *a.exclude;
  if (a.job_name) s.job_name = *a.job_name;
  if (a.cpus) s.cpus = *a.cpus;
  if (a.throttle) s.throttle = *a.throttle;
  if (a.gpus_per_task) s.gpus_per_task = *a.gpus_per_task;
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
    s.gpus_per_task = spec.slurm->gpus_per_task;
    s.extra = spec.slurm->extra;
    s.mem = spec.slurm->mem;
    s.exclude = spec.slurm->exclude;
    s.setup = spec.slurm->setup;
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
    if (v && is_gpu(v->backend)) any_cuda = true;
    if (p.threads) max_threads = std::max(max_threads, *p.threads);
  }
  // A GPU per shard by default; --gpus-per-task asks for several instead (the shard spreads its
  // points over them: docs/measurement.md, "Several GPUs").
  if (!gres_given && any_cuda && s.gpus_per_task == 0) s.gres = "gpu:1";
  if (s.gres == "none") s.gres.clear();  // `gres: none` in the YAML, like --gres none
  if (s.cpus <= 0) s.cpus = max_threads;
  if (s.cpus < max_threads)
    spdlog::warn(
        "points use up to {} threads but each shard gets {} cpus: the larger thread counts will "
        "share cores (their records say oversubscribed where Slurm binds tasks to cores)",
        max_threads, s.cpus);
  return s;
}

// Values of the command line that no default may hide: `--cpus 0` is a mistake, not a request for
// the default (the YAML refuses `cpus: 0` the same way).
void check_arguments(const SubmitArguments& a) {
  if (a.cpus && *a.cpus < 1)
    throw std::invalid_argument(fmt::format("--cpus must be at least 1, got {}", *a.cpus));
  if (a.throttle && *a.throttle < 0)
    throw std::invalid_argument(
        fmt::format("--throttle must be positive (0: no limit), got {}", *a.throttle));
  if (a.time)
    if (const auto why = time_limit_problem(*a.time)) throw std::invalid_argument("--time " + *why);
  if (a.mem && *a.mem != "none")
    if (const auto why = memory_size_problem(*a.mem))
      throw std::invalid_argument(fmt::format("--mem {}; --mem none for no line", *why));
  if (a.exclude && *a.exclude != "none")
    if (const auto why = hostlist_problem(*a.exclude))
      throw std::invalid_argument(fmt::format("--exclude {}; --exclude none for no line", *why));
}

void check_settings(const JobSettings& s) {
  for (const auto& [value, what] : {std::pair{s.partition, "partition"},
                                    {s.account, "account"},
                                    {s.qos, "qos"},
                                    {s.time, "time"},
                                    {s.gres, "gres"},
                                    {s.constraint, "constraint"},
                                    {s.mem, "mem"},
                                    {s.exclude, "exclude"},
                                    {s.job_name, "job name"}})
    require_plain_value(value, what);
  // Checked again here: a resume takes them from the manifest, which may have been edited.
  if (!s.time.empty())
    if (const auto why = time_limit_problem(s.time)) throw std::invalid_argument("time " + *why);
  if (!s.mem.empty())
    if (const auto why = memory_size_problem(s.mem)) throw std::invalid_argument("mem " + *why);
  if (!s.exclude.empty())
    if (const auto why = hostlist_problem(s.exclude))
      throw std::invalid_argument("exclude " + *why);
  for (const auto& line : s.setup)
    if (const auto why = setup_line_problem(line))
      throw std::invalid_argument(fmt::format("setup line '{}' {}", line, *why));
  if (s.cpus < 1)
    throw std::invalid_argument(fmt::format("--cpus must be at least 1, got {}", s.cpus));
  if (s.throttle < 0)
    throw std::invalid_argument(fmt::format("--throttle must be positive, got {}", s.throttle));
  // Here rather than when rendering: a usage error must come before the folder is made.
  sbatch_extra_lines(s.extra);
}

std::string read_template(const std::string& name) {
  const auto file = jobs_dir() / name;
  if (!std::filesystem::exists(file))
    throw UsageError(
        fmt::format("{}: template not found ({}; RUNNER_JOBS_DIR names a folder of a site's own "
                    "shard.sbatch and collect.sbatch)",
                    file.string(),
                    std::getenv("RUNNER_JOBS_DIR") ? "the folder RUNNER_JOBS_DIR names"
                                                   : "the runner's installed templates"));
  return read_text(file);
}

// Refuses a template that lacks {{field}} while the setting it renders is given.
void require_field(const std::string& text, const std::string& field, bool given,
                   const std::string& name) {
  if (given && text.find("{{" + field + "}}") == std::string::npos)
    throw std::invalid_argument(fmt::format(
        "{}: the template has no {{{{{}}}}} field, so the setting would be ignored: add the "
        "field (jobs/README.md) or drop the setting",
        (jobs_dir() / name).string(), field));
}

struct RenderedSubmission {
  Submission submission;
  std::vector<std::pair<std::filesystem::path, std::string>> files;  // path → content
};

// Fills jobs/shard.sbatch for each array and jobs/collect.sbatch once.
RenderedSubmission render(const SlurmRun& run, Submission sub, bool force_mix,
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
      {"exclude_line", sbatch_line("--exclude", s.exclude)},
      {"extra_lines", sbatch_extra_lines(s.extra)},
      {"setup_lines", setup_lines(s.setup)},
  };
  const std::string shard_template = read_template("shard.sbatch");
  const std::string collect_template = read_template("collect.sbatch");
  // A site's own copy of jobs/ from before these fields would drop the settings without a word.
  for (const auto& [field, given] : {std::pair{"mem_line", !s.mem.empty()},
                                     {"gpus_line", s.gpus_per_task > 0},
                                     {"exclude_line", !s.exclude.empty()},
                                     {"setup_lines", !s.setup.empty()}}) {
    require_field(shard_template, field, given, "shard.sbatch");
    if (std::string_view(field) != "mem_line" && std::string_view(field) != "gpus_line")
      require_field(collect_template, field, given, "collect.sbatch");
  }

  RenderedSubmission out;
  for (const auto& a : sub.arrays) {
    auto fields = common;
    fields["array"] = a.array;
    fields["time"] = s.time;
    fields["cpus"] = std::to_string(s.cpus);
    fields["num_shards"] = std::to_string(run.num_shards());
    fields["config"] = run.config_copy().string();
    // Every shard runs with --resume (in the template): a shard Slurm requeues keeps what it
    // recorded. --force-mix lets a resumed shard accept records of another build; --only and
    // --set make every shard expand the plan the run was submitted with.
    std::string runner_args = force_mix ? "--force-mix" : "";
    for (const auto& word :
         PointSelection::from_json(run.document().value("selection", nlohmann::json())).arguments())
      runner_args += (runner_args.empty() ? "" : " ") + shell_quote(word);
    fields["runner_args"] = runner_args;
    fields["shard_map"] = a.shard_map.empty() ? "" : (run.dir() / a.shard_map).string();
    fields["gres_line"] = sbatch_line("--gres", s.gres);
    fields["constraint_line"] = sbatch_line("--constraint", s.constraint);
    fields["mem_line"] = sbatch_line("--mem", s.mem);
    fields["gpus_line"] =
        s.gpus_per_task > 0 ? sbatch_line("--gpus-per-task", std::to_string(s.gpus_per_task)) : "";
    out.files.emplace_back(run.dir() / a.script,
                           render_template(shard_template, fields, "jobs/shard.sbatch"));
    if (!a.shard_map.empty()) {
      std::string map;
      for (int shard : a.shards) map += std::to_string(shard) + "\n";
      out.files.emplace_back(run.dir() / a.shard_map, map);
    }
  }
  auto collect_fields = common;
  // A resubmission that accepted another build must let its collect job merge the mix.
  collect_fields["collect_args"] = force_mix ? "--force-mix" : "";
  out.files.emplace_back(run.dir() / collect_script,
                         render_template(collect_template, collect_fields, "jobs/collect.sbatch"));
  sub.collect_script = collect_script;
  out.submission = std::move(sub);
  return out;
}

ArrayLimits array_limits(const SlurmClient& client, bool dry_run) {
  std::optional<ArrayLimits> limits;
  try {
    limits = client.array_limits();
  } catch (const std::exception& e) {
    if (!dry_run) throw;
    spdlog::info("{}", e.what());
  }
  if (!limits) {
    const ArrayLimits defaults;
    spdlog::warn(
        "cannot read MaxArraySize from `scontrol show config`; assuming Slurm's default {} (and "
        "no max_array_tasks)",
        defaults.max_array_size);
    return defaults;
  }
  return *limits;
}

// Records the limits the arrays were planned under, for whoever reads the plan later.
void record_limits(nlohmann::ordered_json& slurm, const ArrayLimits& limits) {
  slurm["max_array_size"] = limits.max_array_size;
  if (limits.max_array_tasks > 0)
    slurm["max_array_tasks"] = limits.max_array_tasks;
  else
    slurm.erase("max_array_tasks");
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
    const std::string dir = shell_quote(run.dir().string());
    if (array_ids.empty())
      throw std::runtime_error(
          fmt::format("{}\nnothing was submitted. After fixing the cause, submit this plan "
                      "with `runner submit --resume {}` (options such as --partition or --time "
                      "may be given again), or remove {}",
                      e.what(), dir, dir));
    throw std::runtime_error(
        fmt::format("{}\nalready submitted: array job(s) {}. Cancel them with `scancel {}`, "
                    "or fix the problem and run `runner submit --resume {}` (it leaves queued "
                    "shards alone) and `runner collect {}` when they end",
                    e.what(), fmt::join(array_ids, ", "), fmt::join(array_ids, " "), dir, dir));
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
  if (!dry_run) fmt::print("watch with: runner status {}\n", shell_quote(run.dir().string()));
}

std::filesystem::path absolute_clean(const std::filesystem::path& p) {
  return std::filesystem::absolute(p).lexically_normal();
}

// What a --dry-run leaves behind: the config copy, the rendered scripts and map files, empty
// logs/ and shards/ folders, lock files; no manifest and nothing a job wrote. Submitting into
// such a folder replaces only what the dry run rendered, so it is allowed.
bool dry_run_leftover(const std::filesystem::directory_entry& entry) {
  std::error_code ec;
  const std::string name = entry.path().filename().string();
  if (name == "config.yaml") return entry.is_regular_file(ec);
  if (name == "logs" || name == "shards")
    return entry.is_directory(ec) && std::filesystem::is_empty(entry.path(), ec) && !ec;
  if (name != "slurm" || !entry.is_directory(ec)) return false;
  for (const auto& f : std::filesystem::directory_iterator(entry.path(), ec)) {
    const std::string file = f.path().filename().string();
    const bool rendered = f.path().extension() == ".sbatch" ||
                          (file.starts_with("shard_map") && f.path().extension() == ".txt");
    if (!f.is_regular_file(ec) || !(rendered || file == ".lock")) return false;
  }
  return !ec;
}

// Takes the results folder of a new submission: creates it, locks it with the lock a local run
// takes (DIR/.runner.lock, never waiting: Refused, exit 3, when another runner holds it), and
// refuses (UsageError, exit 2) a folder that holds anything but an earlier dry run. The lock is
// held until the run is created and submitted, so a local run and a submit cannot both write
// one folder.
FolderLock claim_run_dir(const std::filesystem::path& out) {
  std::error_code ec;
  const auto status = std::filesystem::status(out, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_directory(status))
    throw UsageError(fmt::format("--out {}: exists and is not a folder", out.string()));
  std::filesystem::create_directories(out, ec);
  if (ec) throw Refused(fmt::format("{}: cannot create: {}", out.string(), ec.message()));
  FolderLock lock(out / kLockFileName, "submit");
  const std::string quoted = shell_quote(out.string());
  if (std::filesystem::exists(out / "manifest.json", ec))
    throw UsageError(fmt::format(
        "--out {} holds a run already (manifest.json). If `runner submit` made it, resubmit its "
        "missing or failed points with `runner submit --resume {}`; otherwise choose another "
        "--out",
        out.string(), quoted));
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator(out, ec))
    if (entry.path().filename() != kLockFileName && !dry_run_leftover(entry))
      found.push_back(entry.path().filename().string());
  if (ec) throw Refused(fmt::format("{}: cannot read: {}", out.string(), ec.message()));
  if (!found.empty()) {
    std::sort(found.begin(), found.end());
    std::string listed;
    for (std::size_t i = 0; i < found.size() && i < 4; ++i) listed += (i ? ", " : "") + found[i];
    if (found.size() > 4) listed += fmt::format(" and {} more", found.size() - 4);
    throw UsageError(
        fmt::format("--out {} is not empty (it holds {}): submit never writes into a folder "
                    "that holds results or anything else but an earlier --dry-run. Choose "
                    "another --out",
                    out.string(), listed));
  }
  return lock;
}

// The text of OUT/config.yaml, which the shards run; "" (as the missing config_text reads) when
// the manifest has no config_text to compare it with.
std::string config_copy_text(const SlurmRun& run) {
  if (!run.document().contains("config_text")) return "";
  try {
    return read_text(run.config_copy());
  } catch (const std::exception&) {
    throw Refused(fmt::format(
        "{}: missing or unreadable; the shards run this copy of the config. Restore it from "
        "config_text in {}",
        run.config_copy().string(), (run.dir() / "manifest.json").string()));
  }
}

}  // namespace

int submit_run(const SubmitArguments& args) {
  check_arguments(args);
  const ExperimentSpec spec = load_config(args.config);
  // Plugins are built here, on the login node, before anything is queued: a compile error costs
  // no job, and the shards load the copies made below (never the sources, which may change).
  const auto plugins = plugin::load_plugins(spec, Registry::instance());
  const std::vector<Point> points = selected_points(spec, args.selection, Registry::instance());
  const int tasks = args.tasks.value_or(1);
  if (tasks < 1 || static_cast<std::size_t>(tasks) > points.size())
    throw std::invalid_argument(
        fmt::format("--tasks {}: the matrix has {} points, so 1 to {} shards (an empty "
                    "shard would be a job with nothing to do)",
                    tasks, points.size(), points.size()));
  JobSettings settings = first_settings(spec, points, args);
  check_settings(settings);

  // Checked before the folder is made: a path the scripts cannot hold must leave nothing behind.
  require_plain_path(absolute_clean(args.out.empty() ? std::filesystem::path("results") /
                                                           spec.experiment / environment().host
                                                     : std::filesystem::path(args.out)),
                     "results directory");
  // The default folder is new (an exclusive mkdir), so two submits never share one.
  const std::filesystem::path out = absolute_clean(
      args.out.empty() ? make_unique_run_dir(std::filesystem::path("results") / spec.experiment,
                                             environment().host)
                       : std::filesystem::path(args.out));
  require_plain_path(out, "results directory");
  // Nothing is written before the folder is ours: locked, and empty.
  const FolderLock folder_lock = claim_run_dir(out);
  // Slurm does not create the folder of --output: logs/ must exist before sbatch.
  for (const char* d : {"logs", "slurm", "shards"}) std::filesystem::create_directories(out / d);
  // The lock `collect` and `submit --resume` take before they rewrite manifest.json.
  RunLock run_lock(out);

  // The plan: every point with its shard. Shards recompute the same assignment from the config
  // copy (deterministic), and the manifest keeps it so status / collect need no expansion.
  const std::vector<int> assignment = shard_assignment(points, tasks, Registry::instance());
  nlohmann::ordered_json point_list = Manifest::point_list(points);
  for (std::size_t i = 0; i < points.size(); ++i) point_list[i]["shard"] = assignment[i];

  const SlurmClient client;
  const ArrayLimits limits = array_limits(client, args.dry_run);
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
  if (!args.selection.empty()) doc["selection"] = args.selection.to_json();
  if (!plugins.empty()) doc["plugins"] = plugin::plugins_manifest(plugins);
  doc["slurm"] = {{"num_shards", tasks},
                  {"runner", runner_executable().string()},
                  {"config", (out / "config.yaml").string()}};
  record_limits(doc["slurm"], limits);
  SlurmRun run(out, doc);

  std::vector<int> all(static_cast<std::size_t>(tasks));
  for (int i = 0; i < tasks; ++i) all[static_cast<std::size_t>(i)] = i;
  Submission sub;
  sub.submitted = utc_now();
  sub.settings = settings;
  sub.arrays = plan_arrays(all, limits, settings.throttle, "");
  const RenderedSubmission rendered = render(run, sub, false, "slurm/collect.sbatch");

  write_file_atomically(run.config_copy(), spec.text);
  if (!plugins.empty()) plugin::copy_into_run(plugins, spec, out);
  write_files(rendered);
  fmt::print("{}: {} points in {} shards; each shard: {} cpus{}{}, time {}{}{}{}\n",
             spec.experiment, points.size(), tasks, settings.cpus,
             settings.gres.empty() ? "" : ", gres " + settings.gres,
             settings.mem.empty() ? "" : ", mem " + settings.mem, settings.time,
             settings.partition.empty() ? "" : ", partition " + settings.partition,
             settings.exclude.empty() ? "" : ", excluding " + settings.exclude,
             settings.setup.empty() ? "" : fmt::format(", {} setup lines", settings.setup.size()));
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
  check_arguments(args);
  const std::filesystem::path dir = absolute_clean(args.resume_dir);
  const std::string quoted_dir = shell_quote(dir.string());
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

  // The shards run OUT/config.yaml and refuse to mix records of two configs: an edited copy
  // would only make every resubmitted shard fail on its node. Say so here, before submitting.
  const std::string submitted_text = run.document().value("config_text", "");
  const std::string copy_text = config_copy_text(run);
  if (copy_text != submitted_text) {
    if (!args.force_mix)
      throw Refused(fmt::format(
          "{} was edited after the run was submitted (it differs from config_text in {}): the "
          "resumed shards would refuse to mix records of two configs. Restore the file as it "
          "was (config_text in the manifest holds it), or submit the edited config as a new "
          "run: `runner submit {} --out NEW_DIR`; --force-mix resumes with the edited config "
          "anyway (the records then mix two configs)",
          run.config_copy().string(), (dir / "manifest.json").string(),
          shell_quote(run.config_copy().string())));
    spdlog::warn("{} was edited after the run was submitted; --force-mix: resuming with it",
                 run.config_copy().string());
  }

  // The shards re-derive their points from the config copy; make sure this binary derives the
  // plan that was submitted, or --resume would run (and skip) the wrong points.
  const ExperimentSpec spec = load_config(run.config_copy());
  plugin::load_plugins(spec, Registry::instance(), {.quiet = true, .submitted_run = dir});
  const PointSelection selection =
      resumed_selection(dir / "manifest.json", args.selection);  // the run's --only / --set
  const std::vector<Point> points = selected_points(spec, selection, Registry::instance());
  const std::vector<int> assignment =
      shard_assignment(points, run.num_shards(), Registry::instance());
  bool same_plan = points.size() == run.points().size();
  for (std::size_t i = 0; same_plan && i < points.size(); ++i)
    same_plan =
        points[i].id() == run.points()[i].point_id && assignment[i] == run.points()[i].shard;
  if (!same_plan && copy_text != submitted_text)
    throw Refused(fmt::format(
        "the edited {} plans other points or shards than the submitted config: a resume cannot "
        "change the plan. Submit it as a new run: `runner submit {} --out NEW_DIR`",
        run.config_copy().string(), shell_quote(run.config_copy().string())));
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
                   ? "every point has a record and none failed (runner collect " + quoted_dir +
                         " merges them)"
                   : "wait for the queued shards, then run runner status " + quoted_dir);
    return 0;
  }

  Submission sub;
  sub.submitted = utc_now();
  sub.resume = true;
  sub.force_mix = args.force_mix;
  sub.settings = override_with(run.submissions().back().settings, args);
  check_settings(sub.settings);
  const std::size_t number = run.submissions().size();
  const std::string suffix = fmt::format(".resume{}", number);
  const ArrayLimits limits = array_limits(client, args.dry_run);
  record_limits(run.document()["slurm"], limits);
  sub.arrays = plan_arrays(to_run, limits, sub.settings.throttle, suffix);
  const RenderedSubmission rendered =
      render(run, sub, args.force_mix, fmt::format("slurm/collect{}.sbatch", suffix));
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
