#include "runner/results/summary.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runner/measure/statistics.hpp"

namespace runner {

void PointTimes::add(const Record& r) {
  auto sum = [&r](double& total, const char* key) {
    if (r.contains(key) && r[key].is_number()) total += r[key].get<double>();
  };
  ++points;
  sum(point_s, "point_s");
  sum(timed_s, "timed_s");
  sum(setup_s, "setup_s");
  sum(verify_s, "verify_s");
  const auto gpu = r.find("gpu_index");
  Share& share = gpu != r.end() && gpu->is_number_integer() ? by_gpu[gpu->get<int>()] : off_gpu;
  ++share.points;
  sum(share.point_s, "point_s");
}

namespace {
// A run of thousands of problems would print thousands of lines at its end: the table shows the
// first ones (in kernel, dtype, size order) and says how many it left out.
constexpr std::size_t kSummaryRows = 40;
// Where the run's time went, from the records' timings: inside the clock, the points' set-up and
// verification, the rest of the points (warm-ups, poisoning, flushes, the worker's round trip),
// and outside the points (calibration, worker starts, the files). `kept`: records of an earlier
// invocation that a resume kept, which this one's wall time did not include. With several GPUs
// at once the points' time is the CPU points' (which never overlap GPU points,
// runner/run/device_scheduler.hpp) plus the busiest GPU's, and a line says each GPU's share.
void print_time_split(const PointTimes& times, std::size_t kept, std::FILE* out,
                      double run_wall_s) {
  if (times.timed_s <= 0) return;
  // Only for one run's wall time: the shards a Slurm collect merges ran on GPUs of several nodes,
  // whose indices repeat.
  const bool several_gpus = times.by_gpu.size() > 1 && run_wall_s > 0;
  double span_s = times.point_s;  // of the wall time, the part the points took
  int busiest = -1;
  if (several_gpus) {
    const auto most = std::max_element(
        times.by_gpu.begin(), times.by_gpu.end(),
        [](const auto& a, const auto& b) { return a.second.point_s < b.second.point_s; });
    busiest = most->first;
    span_s = times.off_gpu.point_s + most->second.point_s;
  }
  const double wall = run_wall_s > 0 ? run_wall_s : span_s;
  const double rest = std::max(0.0, times.point_s - times.timed_s - times.setup_s - times.verify_s);
  std::string outside;
  if (run_wall_s > 0)
    outside = fmt::format("; {:.1f} s outside points (calibration, worker starts, files)",
                          std::max(0.0, run_wall_s - span_s));
  // The timed time of several GPUs adds up their samples: against one wall time it means nothing.
  const std::string overhead =
      several_gpus ? std::string() : fmt::format(": {:.2f} x the timed time", wall / times.timed_s);
  fmt::print(
      out,
      "Time{}: {}{:.1f} s in points: {:.1f} s timed (samples), {:.1f} s set-up (problems, "
      "inputs, buffers), {:.1f} s verification (references, comparisons), {:.1f} s "
      "warm-ups, poisoning and flushes{}{}\n",
      kept > 0 ? fmt::format(" of the {} points run now ({} kept from before)", times.points, kept)
               : std::string(),
      run_wall_s > 0 ? fmt::format("{:.1f} s wall, ", run_wall_s) : std::string(), times.point_s,
      times.timed_s, times.setup_s, times.verify_s, rest, outside, overhead);
  if (!several_gpus) return;
  std::vector<std::string> shares;
  for (const auto& [index, share] : times.by_gpu)
    shares.push_back(fmt::format("GPU {} {} point{}, {:.1f} s", index, share.points,
                                 share.points == 1 ? "" : "s", share.point_s));
  fmt::print(out,
             "Devices: {}{}; the GPUs at once, so the points took {:.1f} s of the wall time "
             "(the busiest, GPU {}{})\n",
             times.off_gpu.points > 0
                 ? fmt::format("CPU worker {} point{}, {:.1f} s; ", times.off_gpu.points,
                               times.off_gpu.points == 1 ? "" : "s", times.off_gpu.point_s)
                 : std::string(),
             fmt::join(shares, "; "), span_s, busiest,
             times.off_gpu.points > 0 ? ", after the CPU worker's" : "");
}

// The sampler's note that a point did not settle to repeat.target_rsd; empty when it did.
std::string noise_warning(const Record& r) {
  return text_of(r, "noise_warning");
}

double rsd_of(const Record& r) {
  return number_or(r, "time_ms_rsd");
}

// The noise of the ok points: how many did not settle, and the noisiest of them. A figure read
// off a noisy point is less certain than its digits say, so the summary says so under the table.
struct Noise {
  int ok = 0, noisy = 0;
  const Record* worst = nullptr;
};

Noise noise_of(const std::vector<Record>& records) {
  Noise n;
  for (const auto& r : records) {
    if (text_of(r, "status") != "ok") continue;
    ++n.ok;
    if (noise_warning(r).empty()) continue;
    ++n.noisy;
    if (!n.worst || rsd_of(r) > rsd_of(*n.worst)) n.worst = &r;
  }
  return n;
}
}  // namespace

void print_summary(const std::vector<Record>& records, std::size_t planned, std::FILE* out,
                   double run_wall_s, const PointTimes* session) {
  struct Best {
    const Record* record = nullptr;
  };
  std::map<std::string, Best> best;  // kernel dtype size backend → fastest
  std::map<std::string, int> counts;
  std::map<std::string, int> reasons;
  for (const auto& r : records) {
    const std::string status = text_of(r, "status");
    ++counts[status];
    if (status != "ok") {
      ++reasons[fmt::format("{} {}: {}", status, text_of(r, "variant"), text_of(r, "message"))];
      continue;
    }
    auto dim = [&](const char* k) {
      return r.contains(k) && r[k].is_number() ? r[k].dump() : std::string();
    };
    std::string size = dim("m");
    if (!dim("n").empty()) size += "x" + dim("n");
    if (!dim("k").empty()) size += "x" + dim("k");
    if (!dim("kernel_size").empty()) size += " ks=" + dim("kernel_size");
    const std::string dtype = text_of(r, "dtype");
    const std::string key =
        fmt::format("{:<10} {:<7} {:<16} {:<5}", text_of(r, "kernel"), dtype.empty() ? "-" : dtype,
                    size.empty() ? "-" : size, text_of(r, "backend"));
    Best& b = best[key];
    if (!b.record ||
        r["time_ms_median"].get<double>() < (*b.record)["time_ms_median"].get<double>())
      b.record = &r;
  }
  if (!best.empty()) {
    fmt::print(out, "\n{:<10} {:<7} {:<16} {:<5} {:<28} {:>12} {:>10} {:>10}  {}\n", "kernel",
               "dtype", "size", "on", "fastest variant", "median ms", "GFLOP/s", "GB/s", "noise");
    std::size_t shown = 0;
    for (const auto& [key, b] : best) {
      if (++shown > kSummaryRows) {
        fmt::print(out, "... and {} more problems (records.csv has every point)\n",
                   best.size() - kSummaryRows);
        break;
      }
      const Record& r = *b.record;
      std::string what = text_of(r, "variant");
      if (r["block_x"].is_number())
        what += fmt::format(" {}x{}", r["block_x"].get<int>(), r["block_y"].get<int>());
      if (r["threads"].is_number()) what += fmt::format(" t={}", r["threads"].get<int>());
      auto fig = [&](const char* k) {
        return r[k].is_number() ? fmt::format("{:.1f}", r[k].get<double>()) : std::string("-");
      };
      // "!" marks a point whose samples did not settle: its figures are less certain.
      std::string line = fmt::format("{} {:<28} {:>12.4f} {:>10} {:>10}", key, what,
                                     r["time_ms_median"].get<double>(), fig("gflops"), fig("gbps"));
      if (!noise_warning(r).empty()) line += fmt::format("  ! rsd {} %", percent_text(rsd_of(r)));
      fmt::print(out, "{}\n", line);
    }
  }
  const Noise noise = noise_of(records);
  if (noise.noisy > 0) {
    const Record& w = *noise.worst;
    fmt::print(out,
               "\nNoise: {} of {} ok points did not settle (noise_warning: rsd above "
               "repeat.target_rsd; ! in the table), the worst at rsd {} %: {}\n",
               noise.noisy, noise.ok, percent_text(rsd_of(w)), text_of(w, "point_key"));
  }
  fmt::print(out, "\n{} of {} points recorded: {} ok, {} failed, {} skipped, {} invalid\n",
             records.size(), planned, counts["ok"], counts["failed"], counts["skipped"],
             counts["invalid"]);
  std::size_t reasons_shown = 0;
  for (const auto& [reason, n] : reasons) {
    if (++reasons_shown > kSummaryRows) {
      fmt::print(out, "  ... and {} more causes (the message column of records.csv)\n",
                 reasons.size() - kSummaryRows);
      break;
    }
    fmt::print(out, "  {} x{}\n", reason, n);
  }
  if (session && session->points < records.size()) {
    print_time_split(*session, records.size() - session->points, out, run_wall_s);
  } else {
    PointTimes all;
    for (const auto& r : records) all.add(r);
    print_time_split(all, 0, out, run_wall_s);
  }
}

}  // namespace runner
