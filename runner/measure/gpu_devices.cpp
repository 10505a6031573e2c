#include "runner/measure/gpu_devices.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "runner/api/gpu_info.hpp"
#include "runner/base/cpu_affinity.hpp"
#include "runner/base/errors.hpp"
#include "runner/base/forked_call.hpp"
#include "runner/measure/device_monitor.hpp"

namespace runner {

namespace {

// Starting a GPU runtime can take seconds (driver load, persistence mode off); more than this is
// a hung driver.
constexpr int kProbeTimeoutSeconds = 120;

const char* visibility_variable() {
#if RUNNER_BUILT_HIP
  return "HIP_VISIBLE_DEVICES";
#else
  return "CUDA_VISIBLE_DEVICES";
#endif
}

// visible_gpus() in a child process, as JSON.
nlohmann::json probe_in_child() {
  const ForkedCallResult r = run_forked(
      [] {
        const VisibleGpus v = visible_gpus();
        nlohmann::json j = {{"absent_reason", v.absent_reason}, {"gpus", nlohmann::json::array()}};
        for (const auto& g : v.gpus)
          j["gpus"].push_back({{"name", g.name}, {"uuid", g.uuid}, {"pci_bus_id", g.pci_bus_id}});
        return j.dump();
      },
      kProbeTimeoutSeconds);
  if (r.finished) try {
      return nlohmann::json::parse(r.text);
    } catch (const std::exception&) {
    }
  return {{"absent_reason",
           r.hung ? fmt::format("listing the GPUs did not finish within {} s (a hung driver?)",
                                kProbeTimeoutSeconds)
                  : fmt::format("listing the GPUs failed ({})", r.how_it_ended())},
          {"gpus", nlohmann::json::array()}};
}

std::string describe_device(const GpuDevice& d) {
  return fmt::format("{} {} ({})", d.index, d.name, d.uuid.empty() ? d.pci_bus_id : d.uuid);
}

// Every GPU, described, comma-separated (a loop, not a views::transform: clang 14 cannot compile
// libstdc++ 12's ranges).
std::string describe_devices(const std::vector<GpuDevice>& all) {
  std::vector<std::string> described;
  for (const auto& d : all) described.push_back(describe_device(d));
  return fmt::format("{}", fmt::join(described, ", "));
}

int g_fake_gpus = 0;
bool g_fake_gpus_predicted = false;  // their listing claims to be NVML's (tests of a disagreement)
// The made-up GPU whose worker dies at start; an int, constant-initialised: set by another
// translation unit's static initialiser.
int g_failing_fake_gpu = -1;

}  // namespace

void use_fake_gpus_for_tests(int count) {
  g_fake_gpus = count;
}

void predict_fake_gpus_for_tests() {
  g_fake_gpus_predicted = true;
}

void fail_fake_gpu_for_tests(int index) {
  g_failing_fake_gpu = index;
}

bool fake_gpu_fails_at_start(const std::string& visibility) {
  return g_fake_gpus > 0 && g_failing_fake_gpu >= 0 && visibility.starts_with("fake-") &&
         std::atoi(visibility.c_str() + 5) == g_failing_fake_gpu;
}

nlohmann::json GpuDevice::to_json() const {
  return {{"gpu_index", index}, {"visibility", visibility}, {"name", name},
          {"uuid", uuid},       {"pci_bus_id", pci_bus_id}, {"cpus", cpus}};
}

std::vector<std::string> visibility_entries(const std::string& value) {
  std::vector<std::string> entries;
  std::size_t pos = 0;
  while (pos <= value.size()) {
    const auto comma = value.find(',', pos);
    std::string entry =
        value.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    entry.erase(std::remove_if(entry.begin(), entry.end(), ::isspace), entry.end());
    if (entry.empty()) break;
    entries.push_back(entry);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return entries;
}

std::vector<GpuDevice> predict_runtime_listing(std::vector<NvmlGpu> gpus,
                                               const std::optional<std::string>& visibility,
                                               const std::string& device_order,
                                               std::string& why_not) {
  for (const auto& g : gpus)
    if (g.mig_enabled) {
      why_not = fmt::format("{} is in MIG mode", g.uuid);
      return {};
    }
  // CUDA's order: PCI bus order with CUDA_DEVICE_ORDER=PCI_BUS_ID; by default fastest first, which
  // among GPUs of one model is PCI bus order again, and among several models is CUDA's own guess.
  std::sort(gpus.begin(), gpus.end(), [](const NvmlGpu& a, const NvmlGpu& b) {
    return std::tie(a.domain, a.bus, a.device) < std::tie(b.domain, b.bus, b.device);
  });
  const bool order_known = device_order == "PCI_BUS_ID" ||
                           std::all_of(gpus.begin(), gpus.end(),
                                       [&](const NvmlGpu& g) { return g.name == gpus[0].name; });
  std::vector<std::string> entries;
  if (!visibility) {
    for (std::size_t i = 0; i < gpus.size(); ++i) entries.push_back(std::to_string(i));
  } else {
    entries = visibility_entries(*visibility);
    if (entries.empty()) {
      why_not = "CUDA_VISIBLE_DEVICES is empty";
      return {};
    }
  }
  std::vector<GpuDevice> devices;
  for (const std::string& entry : entries) {
    const NvmlGpu* found = nullptr;
    if (entry.starts_with("GPU-")) {
      // A UUID, or the start of one (as CUDA reads it: the one GPU whose UUID it begins).
      for (const auto& g : gpus)
        if (g.uuid.starts_with(entry)) {
          if (found) {
            why_not = fmt::format("{} begins more than one GPU's UUID", entry);
            return {};
          }
          found = &g;
        }
    } else if (!entry.empty() && entry.size() < 6 &&
               std::all_of(entry.begin(), entry.end(), ::isdigit)) {
      if (!order_known) {
        why_not = "the GPUs are of several models: CUDA's order of them is its own";
        return {};
      }
      const auto i = static_cast<std::size_t>(std::stoi(entry));
      if (i < gpus.size()) found = &gpus[i];
    }
    if (!found) {  // a MIG instance, or an entry CUDA would stop at: the runtime says what it sees
      why_not = fmt::format("CUDA_VISIBLE_DEVICES entry {} is not a GPU NVML lists", entry);
      return {};
    }
    for (const auto& d : devices)
      if (d.uuid == found->uuid) {
        why_not = fmt::format("CUDA_VISIBLE_DEVICES names {} twice", found->uuid);
        return {};
      }
    GpuDevice d;
    d.index = static_cast<int>(devices.size());
    d.visibility = entry;
    d.name = found->name;
    d.uuid = found->uuid;
    d.pci_bus_id = fmt::format("{:04x}:{:02x}:{:02x}.0", found->domain, found->bus, found->device);
    devices.push_back(std::move(d));
  }
  if (devices.empty()) why_not = "NVML lists no GPU";
  return devices;
}

namespace {

// The runtime's list, asked in a child process.
std::vector<GpuDevice> runtime_listing(GpuInventory& inv) {
  nlohmann::json probed;
  if (g_fake_gpus > 0) {
    probed["gpus"] = nlohmann::json::array();
    for (int i = 0; i < g_fake_gpus; ++i)
      probed["gpus"].push_back(
          {{"name", "Fake GPU (tests)"},
           {"uuid", fmt::format("GPU-fa4e{:04d}-0000-0000-0000-000000000000", i)},
           {"pci_bus_id", fmt::format("0000:{:02x}:00.0", i + 1)}});
  } else {
    const auto start = std::chrono::steady_clock::now();
    probed = probe_in_child();
    spdlog::debug("GPUs listed by the CUDA runtime of a child process in {:.3f} s",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  inv.absent_reason = probed.value("absent_reason", "");
  const std::vector<std::string> entries = visibility_entries(inv.visibility_value);
  std::vector<GpuDevice> devices;
  for (const auto& g : probed["gpus"]) {
    GpuDevice d;
    d.index = static_cast<int>(devices.size());
    d.visibility = inv.visibility_set && static_cast<std::size_t>(d.index) < entries.size()
                       ? entries[static_cast<std::size_t>(d.index)]
                       : std::to_string(d.index);
    if (g_fake_gpus > 0) d.visibility = fmt::format("fake-{}", d.index);  // no runtime has it
    d.name = g.value("name", "");
    d.uuid = g.value("uuid", "");
    d.pci_bus_id = g.value("pci_bus_id", "");
    devices.push_back(std::move(d));
  }
  return devices;
}

// NVML's list where it is certain to be CUDA's (GpuListing::nvml_where_certain), else nullopt.
std::optional<std::vector<GpuDevice>> nvml_listing(GpuInventory& inv) {
  // Made-up GPUs listed as if by NVML: their workers see no GPU, so every hello disagrees.
  if (g_fake_gpus > 0 && g_fake_gpus_predicted) return runtime_listing(inv);
  if (RUNNER_BUILT_HIP || g_fake_gpus > 0) return std::nullopt;
  const auto start = std::chrono::steady_clock::now();
  std::string why_not;
  std::vector<GpuDevice> devices;
  if (const auto gpus = nvml_gpus(why_not)) {
    const char* order = std::getenv("CUDA_DEVICE_ORDER");
    devices = predict_runtime_listing(
        *gpus, inv.visibility_set ? std::optional(inv.visibility_value) : std::nullopt,
        order ? order : "", why_not);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (devices.empty()) {
    spdlog::debug("GPUs not listed by NVML ({}, {:.3f} s): the CUDA runtime lists them", why_not,
                  seconds);
    return std::nullopt;
  }
  spdlog::debug("{} GPU{} listed by NVML in {:.3f} s (each worker's hello confirms its GPU)",
                devices.size(), devices.size() == 1 ? "" : "s", seconds);
  return devices;
}

}  // namespace

GpuInventory probe_gpus(GpuListing how) {
  GpuInventory inv;
  inv.visibility_variable = visibility_variable();
  if (const char* v = std::getenv(inv.visibility_variable.c_str())) {
    inv.visibility_set = true;
    inv.visibility_value = v;
  }
  std::optional<std::vector<GpuDevice>> predicted;
  if (how == GpuListing::nvml_where_certain) predicted = nvml_listing(inv);
  inv.predicted = predicted.has_value();
  inv.devices = predicted ? std::move(*predicted) : runtime_listing(inv);
  const auto affinity_start = std::chrono::steady_clock::now();
  const std::vector<int> mine = cpus_at_start();
  std::map<std::vector<int>, int> sharing;  // an affinity set -> how many GPUs have it
  for (auto& d : inv.devices) {
    for (int c : gpu_cpu_affinity(d.pci_bus_id))
      if (std::find(mine.begin(), mine.end(), c) != mine.end()) d.cpus.push_back(c);
    ++sharing[d.cpus];
  }
  if (!inv.devices.empty())
    spdlog::debug(
        "their cores from NVML in {:.3f} s",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - affinity_start).count());
  // A worker's host thread spins while its kernel runs: the cores near a GPU are used only when
  // there are at least two for each GPU that shares them. Some nodes (virtual machines among them)
  // report one core for every GPU; pinning there would put every worker on that core.
  for (auto& d : inv.devices)
    if (!d.cpus.empty() && d.cpus.size() < 2 * static_cast<std::size_t>(sharing[d.cpus])) {
      inv.notes.push_back(fmt::format(
          "GPU {}: the node gives {} core{} near it ({}) for {} GPU{}: its worker is not pinned",
          d.index, d.cpus.size(), d.cpus.size() == 1 ? "" : "s", fmt::join(d.cpus, ","),
          sharing[d.cpus], sharing[d.cpus] == 1 ? "" : "s"));
      d.cpus.clear();
    }
  if (inv.devices.empty() && inv.visibility_set && inv.visibility_value.empty())
    inv.absent_reason = fmt::format("{} is set and empty: no GPU is visible to this process",
                                    inv.visibility_variable);
  return inv;
}

std::vector<GpuDevice> select_gpus(const GpuRequest& request, const GpuInventory& inventory) {
  const auto& all = inventory.devices;
  const std::string seen =
      all.empty()
          ? fmt::format("this process sees no GPU ({})", inventory.absent_reason)
          : fmt::format("this process sees {} GPU{}{}", all.size(), all.size() == 1 ? "" : "s",
                        inventory.visibility_set
                            ? fmt::format(" ({}={})", inventory.visibility_variable,
                                          inventory.visibility_value)
                            : "");
  switch (request.kind) {
    case GpuRequest::Kind::all:
      return all;
    case GpuRequest::Kind::count:
      if (static_cast<std::size_t>(request.count) > all.size())
        throw UsageError(
            fmt::format("{}: {} GPUs asked for, and {}", request.origin, request.count, seen));
      return {all.begin(), all.begin() + request.count};
    case GpuRequest::Kind::list:
      break;
  }
  std::vector<GpuDevice> chosen;
  for (const auto& item : request.items) {
    const GpuDevice* found = nullptr;
    if (item.starts_with("GPU-") || item.starts_with("MIG-")) {
      for (const auto& d : all)
        if (d.uuid == item || d.visibility == item) found = &d;
      // As in CUDA_VISIBLE_DEVICES, the start of a UUID names the one GPU whose UUID it begins.
      std::vector<const GpuDevice*> begun;
      if (!found)
        for (const auto& d : all)
          if (d.uuid.starts_with(item)) begun.push_back(&d);
      if (begun.size() == 1) found = begun.front();
      if (begun.size() > 1) {
        std::vector<std::string> names;
        for (const GpuDevice* d : begun) names.push_back(describe_device(*d));
        throw UsageError(fmt::format("{}: {} begins the UUID of {} GPUs ({}): give more of it",
                                     request.origin, item, begun.size(), fmt::join(names, ", ")));
      }
      if (!found)
        throw UsageError(fmt::format(
            "{}: no GPU with UUID {} here; {} ({})", request.origin, item, seen,
            all.empty() ? std::string("nvidia-smi -L lists the UUIDs") : describe_devices(all)));
    } else {
      const int index = std::stoi(item);
      if (index < 0 || static_cast<std::size_t>(index) >= all.size())
        throw UsageError(
            fmt::format("{}: there is no GPU {}: {}{}", request.origin, item, seen,
                        all.empty() ? "" : fmt::format(" (indices 0 to {})", all.size() - 1)));
      found = &all[static_cast<std::size_t>(index)];
    }
    for (const auto& c : chosen)
      if (c.index == found->index)
        throw UsageError(fmt::format("{}: GPU {} is named twice (as {})", request.origin,
                                     describe_device(*found), item));
    chosen.push_back(*found);
  }
  return chosen;
}

std::string describe_selection(const std::vector<GpuDevice>& selected,
                               const GpuInventory& inventory) {
  if (selected.empty())
    return fmt::format("no GPU ({})",
                       inventory.absent_reason.empty() ? "none selected" : inventory.absent_reason);
  std::vector<std::string> names;
  for (const auto& d : selected) names.push_back(describe_device(d));
  return fmt::format(
      "{} of {} GPU{}{}: {}", selected.size(), inventory.devices.size(),
      inventory.devices.size() == 1 ? "" : "s",
      inventory.visibility_set
          ? fmt::format(" ({}={})", inventory.visibility_variable, inventory.visibility_value)
          : "",
      fmt::join(names, "; "));
}

}  // namespace runner
