#include "runner/slurm/shard_identity.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runner/results/record.hpp"
#include "runner/run/resume.hpp"
#include "runner/slurm/array_indices.hpp"

namespace runner::slurm {

namespace {

// The device an earlier release's environment describes: the GPU's name when there is one,
// else the CPU model (what runner/run/experiment.cpp puts in the identity).
std::string device_of(const nlohmann::json& environment) {
  if (!environment.is_object()) return "";
  const auto gpu = environment.value("gpu", nlohmann::json());
  if (gpu.is_object() && gpu.value("present", false)) return text_of(gpu, "name");
  if (gpu.is_string() && !gpu.get<std::string>().empty()) return gpu.get<std::string>();
  return text_of(environment, "cpu_model");
}

std::string shards_word(const std::vector<int>& shards) {
  return fmt::format("{} {}", shards.size() == 1 ? "shard" : "shards", format_index_list(shards));
}

}  // namespace

nlohmann::ordered_json ShardIdentity::to_json() const {
  return {{"config", config}, {"build", build}, {"device", device}};
}

std::optional<ShardIdentity> shard_identity(const nlohmann::json& manifest) {
  if (!manifest.is_object()) return std::nullopt;
  ShardIdentity id;
  const nlohmann::json environment = manifest.value("environment", nlohmann::json());
  if (manifest.contains("identity") && manifest["identity"].is_object()) {
    const auto& i = manifest["identity"];
    id.config = text_of(i, "config");
    id.build = text_of(i, "build");
    id.device = text_of(i, "device");
    if (!id.config.empty() || !id.build.empty()) return id;
  }
  // Earlier releases: the parts the identity is made of are in the manifest all the same.
  const std::string text = text_of(manifest, "config_text");
  const std::string revision = text_of(environment, "git_revision");
  if (manifest.contains("config_text") && !revision.empty()) {
    id.config = identity_of(text).config;
    id.build = revision;
    id.device = device_of(environment);
    return id;
  }
  const std::string fingerprint = text_of(manifest, "fingerprint");
  if (fingerprint.empty()) return std::nullopt;
  id.config = id.build = fingerprint;
  id.device = device_of(environment);
  id.from_fingerprint = true;
  return id;
}

bool IdentityCheck::mixed() const {
  if (groups.size() > 1) return true;
  return !groups.empty() && !groups.front().from_fingerprint && !groups.front().submitted_config;
}

std::string IdentityCheck::describe() const {
  std::vector<std::string> parts;
  for (const auto& g : groups) {
    if (g.from_fingerprint) {
      parts.push_back(
          fmt::format("{}: fingerprint {} (an earlier release: config, build and "
                      "device in one hash)",
                      shards_word(g.shards), g.config));
      continue;
    }
    parts.push_back(fmt::format("{}: config {} ({}), build {}", shards_word(g.shards), g.config,
                                g.submitted_config ? "the submitted config"
                                                   : "not the submitted config: config.yaml "
                                                     "was edited, or another config ran",
                                g.build.empty() ? "?" : g.build));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

nlohmann::ordered_json IdentityCheck::to_json() const {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& g : groups) {
    nlohmann::ordered_json on = nlohmann::ordered_json::object();  // device → shards of g
    for (const auto& [device, shards] : devices) {
      std::vector<int> common;
      for (int s : shards)
        if (std::find(g.shards.begin(), g.shards.end(), s) != g.shards.end()) common.push_back(s);
      if (!common.empty()) on[device] = common;
    }
    nlohmann::ordered_json entry = {{"config", g.config},
                                    {"build", g.build},
                                    {"submitted_config", g.submitted_config},
                                    {"shards", g.shards},
                                    {"devices", on}};
    if (g.from_fingerprint) entry["fingerprint_only"] = true;
    list.push_back(entry);
  }
  return list;
}

IdentityCheck check_identities(const std::map<int, ShardIdentity>& identities,
                               const std::string& submitted_config_text) {
  IdentityCheck check;
  const std::string submitted = identity_of(submitted_config_text).config;
  for (const auto& entry : identities) {
    // (No structured binding: clang before 16 cannot capture one in the lambda.)
    const int shard = entry.first;
    const ShardIdentity& id = entry.second;
    auto it = std::find_if(check.groups.begin(), check.groups.end(), [&](const auto& g) {
      return g.config == id.config && g.build == id.build;
    });
    if (it == check.groups.end()) {
      check.groups.push_back({id.config,
                              id.build,
                              id.from_fingerprint,
                              !id.from_fingerprint && id.config == submitted,
                              {}});
      it = std::prev(check.groups.end());
    }
    it->shards.push_back(shard);
    if (!id.device.empty()) check.devices[id.device].push_back(shard);
  }
  return check;
}

}  // namespace runner::slurm
