#include "runner/results/run_identity.hpp"

#include <fmt/format.h>

#include "runner/api/point.hpp"
#include "runner/base/build_info.hpp"

namespace runner {

nlohmann::ordered_json RunIdentity::to_json() const {
  return {{"config", config}, {"build", build}, {"device", device}};
}

std::string RunIdentity::fingerprint() const {
  // Hashed as releases before the identity had parts did, so that their manifests still compare.
  return fmt::format("{:016x}", fnv1a64(config_text + "\n" + build + "\n" + device));
}

RunIdentity identity_of(const std::string& config_text) {
  RunIdentity id;
  id.config_text = config_text;
  id.config = fmt::format("{:016x}", fnv1a64(config_text));
  id.build = build_info::kGitRevision;
  return id;
}

}  // namespace runner
