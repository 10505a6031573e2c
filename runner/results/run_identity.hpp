#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace runner {

// What must match for the records in a folder to be resumed: the config text, the build of the
// runner and the device measured. Stored in the manifest; compared part by part, so that a
// refusal says which one changed.
struct RunIdentity {
  std::string config_text;  // as read (not stored: the manifest has it under config_text)
  std::string config;       // hash of the config text
  std::string build;        // git revision of the runner
  std::string device;       // GPU name, or CPU model without a GPU; empty until a worker said hello

  nlohmann::ordered_json to_json() const;
  // The single hash of earlier releases' manifests ("fingerprint").
  std::string fingerprint() const;
};

// The identity of this run before a worker has reported the device.
RunIdentity identity_of(const std::string& config_text);

}  // namespace runner
