#include "runner/spec/matrix.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "runner/spec/axes.hpp"
#include "runner/spec/config_error.hpp"
#include "runner/spec/did_you_mean.hpp"

namespace runner {

namespace {

// More points than anyone can run (at a tenth of a second each, 100000 points take three hours),
// and a bound on the work and memory of expanding a few lines of YAML: [1..300] on three axes
// alone is 27 million points.
constexpr std::size_t kMaxPoints = 100000;

// Value of an axis for a point when neither the sweep nor the top level gives one.
std::optional<LocatedValue> builtin_default(Axis axis) {
  const auto& make = describe(axis).builtin_default;
  if (!make) return std::nullopt;
  return LocatedValue{make(), {}};
}

void assign(Point& p, Axis axis, const AxisValue& v) {
  describe(axis).assign(p, v);
}

// Whether a point has this axis value (an exclude entry or a baseline's fixed value matches).
bool has_value(const Point& p, Axis axis, const AxisValue& v) {
  return describe(axis).matches(p, v);
}

std::vector<Axis> axes_of(const KernelInfo& k, const VariantInfo& v) {
  std::vector<Axis> axes = k.axes;
  for (Axis a : v.axes)
    if (std::find(axes.begin(), axes.end(), a) == axes.end()) axes.push_back(a);
  return axes;
}

bool supports(const KernelInfo& k, const VariantInfo& v, Dtype d) {
  const auto& list = v.dtypes.empty() ? k.dtypes : v.dtypes;
  return std::find(list.begin(), list.end(), d) != list.end();
}

class Expander {
 public:
  Expander(const ExperimentSpec& spec, const Registry& registry)
      : spec_(spec), registry_(registry) {}

  [[noreturn]] void fail(Location at, const std::string& what) const {
    throw ConfigError(spec_.file.string(), at.line, at.column, what);
  }

  const KernelInfo& kernel(const LocatedValue& lv) const {
    const auto& name = std::get<std::string>(lv.value);
    if (const auto* k = registry_.find(name)) return *k;
    const std::string hint = closest_match(name, registry_.kernel_names());
    fail(lv.where, fmt::format("unknown kernel '{}'{} (known: {})", name,
                               hint.empty() ? "" : fmt::format(", did you mean '{}'?", hint),
                               fmt::join(registry_.kernel_names(), ", ")));
  }

  std::vector<std::string> variant_names(const KernelInfo& k) const {
    std::vector<std::string> names;
    for (const auto& v : k.variants) names.push_back(v.name);
    return names;
  }

  // Normalises and checks a point that has a value for every axis it uses.
  void finish(Point& p, const KernelInfo& k, Location size_at) const {
    if (p.size) {
      if (!k.uses(Axis::size))
        p.size.reset();
      else if (k.name != "gemm")
        p.size->k = 0;  // 2-D problems have no k
      else if (p.size->k == 0)
        fail(size_at,
             fmt::format("size of a gemm needs k: {{m: {}, n: {}, k: K}}", p.size->m, p.size->n));
    }
    const double bytes = k.bytes ? k.bytes(p) : 0.0;
    if (!(bytes < 9.2e18))
      fail(size_at, fmt::format("size {} needs {:.3g} bytes, beyond a 64-bit byte count",
                                p.size ? to_string(*p.size) : "?", bytes));
  }

  void add(Point p) {
    const std::string key = p.key();
    if (seen_.insert(key).second) points_.push_back(std::move(p));
  }

  void expand_sweep(const Sweep& sweep) {
    std::map<Axis, const std::vector<LocatedValue>*> listed;
    for (const auto& [axis, values] : sweep.axes) listed[axis] = &values;

    std::vector<LocatedValue> kernels;
    if (listed.count(Axis::kernel))
      kernels = *listed[Axis::kernel];
    else if (spec_.defaults.count(Axis::kernel))
      kernels = {spec_.defaults.at(Axis::kernel)};
    else
      fail(sweep.where,
           "this sweep has no kernel: set 'kernel: NAME' at the top level or in the sweep");

    std::set<Axis> used_by_some;
    used_by_some.insert(Axis::kernel);
    used_by_some.insert(Axis::variant);
    std::size_t generated = 0;
    for (const auto& kernel_value : kernels) {
      const KernelInfo& k = kernel(kernel_value);
      std::vector<const VariantInfo*> variants;
      if (listed.count(Axis::variant)) {
        for (const auto& lv : *listed[Axis::variant]) {
          const auto& name = std::get<std::string>(lv.value);
          if (const auto* v = k.find_variant(name)) {
            variants.push_back(v);
            continue;
          }
          // A sweep over several kernels may name a variant only some of them have.
          bool elsewhere = false;
          for (const auto& other : kernels)
            if (registry_.find(std::get<std::string>(other.value)) &&
                registry_.find(std::get<std::string>(other.value))->find_variant(name))
              elsewhere = true;
          if (elsewhere) continue;
          const std::string hint = closest_match(name, variant_names(k));
          fail(lv.where,
               fmt::format("unknown variant '{}' of kernel '{}'{} (known: {})", name, k.name,
                           hint.empty() ? "" : fmt::format(", did you mean '{}'?", hint),
                           fmt::join(variant_names(k), ", ")));
        }
      } else if (spec_.defaults.count(Axis::variant)) {
        const auto& lv = spec_.defaults.at(Axis::variant);
        const auto* v = k.find_variant(std::get<std::string>(lv.value));
        if (!v)
          fail(lv.where,
               fmt::format("unknown variant '{}' of kernel '{}'", to_string(lv.value), k.name));
        variants.push_back(v);
      } else {
        for (const auto& v : k.variants) variants.push_back(&v);
      }

      for (const VariantInfo* v : variants) {
        const std::vector<Axis> axes = axes_of(k, *v);
        for (Axis a : axes) used_by_some.insert(a);
        // Values per used axis: the sweep's list, else the top-level default, else the built-in
        // one.
        std::vector<std::pair<Axis, std::vector<LocatedValue>>> dims;
        Location size_at = sweep.where;
        for (Axis a : axes) {
          std::vector<LocatedValue> vals;
          if (listed.count(a))
            vals = *listed[a];
          else if (spec_.defaults.count(a))
            vals = {spec_.defaults.at(a)};
          else if (auto d = builtin_default(a))
            vals = {*d};
          else
            fail(sweep.where, fmt::format("variant '{}' of '{}' needs a value for '{}': list it in "
                                          "this sweep or set it at the top level",
                                          v->name, k.name, axis_name(a)));
          if (a == Axis::size && !vals.empty() && vals.front().where.line > 0)
            size_at = vals.front().where;
          dims.emplace_back(a, std::move(vals));
        }
        std::size_t combinations = 1;  // saturates just above the cap
        for (const auto& dim : dims)
          combinations = std::min(combinations, kMaxPoints + 1) * dim.second.size();
        planned_ += std::min(combinations, kMaxPoints + 1);
        if (planned_ > kMaxPoints)
          fail(sweep.where,
               fmt::format("the sweeps expand to more than {} points: split the experiment "
                           "into several configs",
                           kMaxPoints));
        std::vector<std::size_t> index(dims.size(), 0);
        while (true) {
          Point p;
          p.kernel = k.name;
          p.variant = v->name;
          Location at = size_at;
          for (std::size_t d = 0; d < dims.size(); ++d) {
            const LocatedValue& lv = dims[d].second[index[d]];
            assign(p, dims[d].first, lv.value);
            if (dims[d].first == Axis::size && lv.where.line > 0) at = lv.where;
          }
          if (!p.dtype || supports(k, *v, *p.dtype)) {
            finish(p, k, at);
            ++generated;
            add(std::move(p));
          }
          std::size_t d = 0;
          for (; d < dims.size(); ++d) {
            if (++index[d] < dims[d].second.size()) break;
            index[d] = 0;
          }
          if (d == dims.size()) break;
        }
      }
    }
    for (const auto& [axis, values] : sweep.axes)
      if (!used_by_some.count(axis))
        fail(values.front().where,
             fmt::format("axis '{}' is not used by any variant of this sweep", axis_name(axis)));
    if (generated == 0)
      fail(sweep.where, "this sweep expands to no point (no variant supports the listed dtypes?)");
  }

  // Whether an exclude entry matches the point: every axis it lists has one of its values.
  // Counts the matches of each entry, so that an entry that matches nothing can be reported.
  bool excluded(const Point& p) {
    bool any_entry = false;
    for (std::size_t e = 0; e < spec_.excludes.size(); ++e) {
      bool all = true;
      for (const auto& [axis, values] : spec_.excludes[e].axes) {
        bool any = false;
        for (const auto& lv : values) any = any || has_value(p, axis, lv.value);
        all = all && any;
      }
      if (all) {
        ++exclude_matches_[e];
        any_entry = true;
      }
    }
    return any_entry;
  }

  // Kernel and variant names in an exclude entry must exist: a misspelt name would exclude
  // nothing and say nothing.
  void check_exclude_names() const {
    std::set<std::string> config_kernels;
    for (const Point& p : points_) config_kernels.insert(p.kernel);
    for (const auto& ex : spec_.excludes) {
      std::vector<std::string> kernels(config_kernels.begin(), config_kernels.end());
      for (const auto& [axis, values] : ex.axes) {
        if (axis != Axis::kernel) continue;
        kernels.clear();
        for (const auto& lv : values) kernels.push_back(kernel(lv).name);
      }
      for (const auto& [axis, values] : ex.axes) {
        if (axis != Axis::variant) continue;
        for (const auto& lv : values) {
          const auto& name = std::get<std::string>(lv.value);
          std::vector<std::string> known;
          bool found = false;
          for (const auto& kname : kernels) {
            const KernelInfo* k = registry_.find(kname);
            if (!k) continue;
            if (k->find_variant(name)) found = true;
            for (const auto& v : k->variants) known.push_back(v.name);
          }
          if (found) continue;
          const std::string hint = closest_match(name, known);
          fail(lv.where,
               fmt::format("exclude names variant '{}', which no kernel of this config "
                           "has{} (known: {})",
                           name, hint.empty() ? "" : fmt::format(", did you mean '{}'?", hint),
                           fmt::join(known, ", ")));
        }
      }
    }
  }

  void apply_excludes() {
    check_exclude_names();
    exclude_matches_.assign(spec_.excludes.size(), 0);
    std::erase_if(points_, [&](const Point& p) { return excluded(p); });
    if (points_.empty())
      fail(Location{1, 1}, "the sweeps less the excluded points leave nothing to run");
  }

  // After baselines are added (excludes apply to them too): an entry that matched no point is a
  // mistake in its values.
  void check_every_exclude_matched() const {
    for (std::size_t e = 0; e < spec_.excludes.size(); ++e)
      if (exclude_matches_[e] == 0)
        fail(spec_.excludes[e].where,
             fmt::format("exclude[{}] matches no point of the sweeps (nor a baseline): nothing to "
                         "exclude. Check its values, or remove it",
                         e));
  }

  // One baseline point for every problem the other points use, unless one is already there.
  void add_baselines() {
    if (!spec_.baseline) return;
    const BaselineSpec& b = *spec_.baseline;
    std::vector<Point> extra;
    std::set<std::string> problems;
    bool any_kernel = false;
    for (const Point& p : points_) {
      const KernelInfo* k = registry_.find(p.kernel);
      const VariantInfo* v = k->find_variant(b.variant);
      if (!v) continue;
      any_kernel = true;
      if (p.dtype && !supports(*k, *v, *p.dtype)) continue;
      if (!problems.insert(p.problem_key()).second) continue;
      Point base;
      base.kernel = p.kernel;
      base.variant = b.variant;
      base.size = p.size;
      base.dtype = p.dtype;
      base.kernel_size = p.kernel_size;
      for (Axis a : v->axes) {
        std::optional<LocatedValue> val;
        for (const auto& [fa, fv] : b.fixed)
          if (fa == a) val = fv;
        if (!val && spec_.defaults.count(a)) val = spec_.defaults.at(a);
        if (!val) val = builtin_default(a);
        if (val) assign(base, a, val->value);
      }
      base.is_baseline = true;
      // Excludes apply to baselines too: a config can keep a slow baseline off the large problems
      // (their points then have no speedup).
      if (excluded(base)) continue;
      extra.push_back(std::move(base));
    }
    if (!any_kernel) {
      std::set<std::string> names;
      for (const Point& p : points_) names.insert(p.kernel);
      fail(b.where,
           fmt::format("baseline variant '{}' exists in none of the kernels of this config ({})",
                       b.variant, fmt::join(names, ", ")));
    }
    // A fixed value on an axis the baseline variant does not use would be dropped in silence.
    for (const auto& [axis, value] : b.fixed) {
      bool used = false;
      std::set<std::string> axes_used;
      for (const Point& p : points_) {
        const KernelInfo* k = registry_.find(p.kernel);
        const VariantInfo* v = k ? k->find_variant(b.variant) : nullptr;
        if (!v) continue;
        for (Axis a : axes_of(*k, *v)) {
          axes_used.insert(std::string(axis_name(a)));
          used = used || a == axis;
        }
      }
      if (!used)
        fail(value.where, fmt::format("baseline fixes '{}', which variant '{}' does not use (its "
                                      "axes: {})",
                                      axis_name(axis), b.variant, fmt::join(axes_used, ", ")));
    }
    // Each point's key spelled once (a matrix has up to 100000 points, a baseline per problem).
    std::unordered_map<std::string, std::size_t> index_of_key;
    for (std::size_t i = 0; i < points_.size(); ++i) index_of_key.emplace(points_[i].key(), i);
    for (auto& base : extra) {
      std::string key = base.key();
      if (const auto it = index_of_key.find(key); it != index_of_key.end()) {
        points_[it->second].is_baseline = true;
      } else {
        const std::size_t before = points_.size();
        add(std::move(base));
        if (points_.size() > before) index_of_key.emplace(std::move(key), before);
      }
    }
  }

  std::vector<Point> run() {
    for (const auto& sweep : spec_.sweeps) expand_sweep(sweep);
    apply_excludes();
    add_baselines();
    check_every_exclude_matched();
    // Execution order: groups by problem in order of first appearance; baseline, then ceiling,
    // then the points at one thread (each variant's strong-scaling reference), then the rest
    // within a group.
    auto role = [&](const Point& p) {
      if (p.is_baseline) return 0;
      const KernelInfo* k = registry_.find(p.kernel);
      return (k && p.variant == k->ceiling_variant) ? 1 : 2;
    };
    // A point's strong-scaling series (every axis but threads) is placed where the series first
    // appears, its one-thread point first: the others' scaling_efficiency is against it.
    auto series_of = [](Point p) {
      p.threads.reset();
      return p.key();
    };
    // Each point's place is spelled once, then the points sorted by it: keys built inside the
    // comparison cost seconds at 100000 points (a minute and a half under the sanitizers).
    struct Place {
      std::size_t group, role, series;
      bool not_one_thread;
      auto operator<=>(const Place&) const = default;
    };
    std::unordered_map<std::string, std::size_t> group_rank, series_rank;
    std::vector<Place> places;
    places.reserve(points_.size());
    for (const auto& p : points_) {
      const std::size_t group =
          group_rank.emplace(p.problem_key(), group_rank.size()).first->second;
      const std::size_t series =
          series_rank.emplace(series_of(p), series_rank.size()).first->second;
      places.push_back({group, static_cast<std::size_t>(role(p)), series, p.threads != 1});
    }
    std::vector<std::size_t> order(points_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return places[a] < places[b]; });
    std::vector<Point> sorted;
    sorted.reserve(points_.size());
    for (const std::size_t i : order) sorted.push_back(std::move(points_[i]));
    points_ = std::move(sorted);
    return points_;
  }

 private:
  const ExperimentSpec& spec_;
  const Registry& registry_;
  std::vector<Point> points_;
  std::set<std::string> seen_;
  std::vector<std::size_t> exclude_matches_;  // points each exclude entry removed
  std::size_t planned_ = 0;  // points the sweeps generate before duplicates are dropped
};

}  // namespace

std::vector<Point> expand(const ExperimentSpec& spec, const Registry& registry) {
  return Expander(spec, registry).run();
}

namespace {

// The share of a whole GPU that a point's launch occupies: 1 unless the point fixes its grid, then
// its threads over kFullGpuThreads (a 132-SM GPU at 2048 resident threads per SM is 2^18).
constexpr double kFullGpuThreads = 262144.0;
double launched_gpu_share(const Point& point) {
  if (!point.grid || *point.grid <= 0) return 1.0;
  const double block_threads =
      point.block ? static_cast<double>(std::max<std::int64_t>(point.block->threads(), 1)) : 256.0;
  return std::min(1.0, static_cast<double>(*point.grid) * block_threads / kFullGpuThreads);
}

}  // namespace

double estimated_cost(const Point& point, const Registry& registry) {
  const KernelInfo* k = registry.find(point.kernel);
  if (!k) return 1.0;
  const VariantInfo* v = k->find_variant(point.variant);
  const bool gpu = v && is_gpu(v->backend);
  // Nominal rates: a GPU does ~10 TFLOP/s and ~1 TB/s on seed-grade kernels, a CPU core ~10
  // GFLOP/s and ~5 GB/s. Only the ratios between points matter.
  const int threads = point.threads.value_or(1);
  // A GPU launch with a fixed grid smaller than the device (the seeds' `grid: [1, 8, 64]` sweeps of
  // one-thread blocks) runs at the rate of the threads it has: one thread is ~2^-18 of a GPU. These
  // points take seconds where the rest take milliseconds, and the GPU scheduler hands out the most
  // costly groups first, so they must not look cheap.
  const double gpu_share = gpu ? launched_gpu_share(point) : 1.0;
  const double flop_rate = gpu ? 1e13 * gpu_share : 1e10 * threads;
  const double byte_rate = gpu ? 1e12 * gpu_share : 5e9 * std::min(threads, 4);
  const double flops = k->flops ? k->flops(point) : 0.0;
  const double bytes = k->bytes ? k->bytes(point) : 0.0;
  const double per_run = std::max(flops / flop_rate, bytes / byte_rate);
  return 0.05 + 10.0 * per_run;  // fixed set-up cost plus ~10 samples
}

std::vector<int> shard_assignment(const std::vector<Point>& points, int count,
                                  const Registry& registry) {
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> cost(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) cost[i] = estimated_cost(points[i], registry);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (cost[a] != cost[b]) return cost[a] > cost[b];
    return points[a].id() < points[b].id();
  });
  std::vector<double> load(static_cast<std::size_t>(count), 0.0);
  std::vector<int> assignment(points.size(), 0);
  for (std::size_t i : order) {
    const auto lightest =
        static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    assignment[i] = static_cast<int>(lightest);
    load[lightest] += cost[i];
  }
  return assignment;
}

std::vector<Point> shard(const std::vector<Point>& points, int index, int count,
                         const Registry& registry) {
  const auto assignment = shard_assignment(points, count, registry);
  std::vector<Point> out;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (assignment[i] == index) out.push_back(points[i]);
  return out;
}

}  // namespace runner
