#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace runner::slurm {

// What made a shard's records, from its OUT/shards/I.manifest.json: the config text (a hash),
// the runner's build (git revision) and the device measured. A run's shards must agree on config
// and build for their records to form one result set; their devices may differ (a partition with
// two GPU models), which is worth a warning, not a refusal.
struct ShardIdentity {
  std::string config, build, device;
  // Read from an earlier release's manifest, which has only one hash ("fingerprint") of all
  // three and no config text: config and build then both hold that hash.
  bool from_fingerprint = false;

  nlohmann::ordered_json to_json() const;
};

// The identity a shard manifest records ("identity"), else what its config_text and environment
// say, else its "fingerprint"; nullopt when it has none of them.
std::optional<ShardIdentity> shard_identity(const nlohmann::json& shard_manifest);

// The shards of a run sorted by what made them: one group per (config, build), one list per device.
struct IdentityCheck {
  struct Group {
    std::string config, build;
    bool from_fingerprint = false;
    bool submitted_config = false;  // the config hash is that of the run's config_text
    std::vector<int> shards;
  };
  std::vector<Group> groups;                        // in order of their first shard
  std::map<std::string, std::vector<int>> devices;  // device → shards ("" left out)

  // Shards of different configs or builds, or of a config other than the one submitted.
  bool mixed() const;
  // "shards 0-1,3: config 1a2b… (the submitted config), build abc; shard 2: …" for messages.
  std::string describe() const;
  // Every identity with its shards, for the run's manifest.
  nlohmann::ordered_json to_json() const;
};

// Groups `identities` (shard → identity; shards without one are left out) and compares each
// group's config with `submitted_config_text`, the config_text of the run's manifest.
IdentityCheck check_identities(const std::map<int, ShardIdentity>& identities,
                               const std::string& submitted_config_text);

}  // namespace runner::slurm
