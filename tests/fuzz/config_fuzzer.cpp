// libFuzzer target: any bytes as a config file, through parse_config and expand with the real
// kernels, then sharding. A config may be refused only with a ConfigError whose message is one
// located line without control characters; anything else that escapes (another exception, a crash,
// a sanitizer report, a hang, memory without bound) is a bug. Accepted configs must expand to
// points with unique ids that the shards cover exactly once.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include "runner/api/registry.hpp"
#include "runner/spec/config.hpp"
#include "runner/spec/config_error.hpp"
#include "runner/spec/matrix.hpp"

namespace {

[[noreturn]] void violated(const char* what, const std::string& detail) {
  std::fprintf(stderr, "invariant violated: %s: %s\n", what, detail.c_str());
  std::abort();
}

void check_error(const runner::ConfigError& e) {
  const std::string message = e.located();
  if (!message.starts_with("fuzz.yaml"))
    violated("message does not start with the file name", message);
  for (const char c : message)
    if (static_cast<unsigned char>(c) < 0x20)
      violated("a control character in the message", message);
  if (e.line() < 0 || e.column() < 0) violated("negative location", message);
  if (e.line() > 0 && e.column() <= 0) violated("a line without a column", message);
}

void check_points(const std::vector<runner::Point>& points, const runner::Registry& registry) {
  std::set<std::string> ids;
  for (const auto& p : points)
    if (!ids.insert(p.id()).second) violated("two points with one id", p.key());
  if (points.empty()) violated("an accepted config without points", "");
  // Sharding is O(n log n) with a point id per comparison: fine in a release build (1.6 s for the
  // largest matrix, 100000 points), but tens of seconds under ASan and coverage. Large matrices
  // say nothing new about it.
  if (points.size() > 2000) return;
  std::size_t covered = 0;
  for (int i = 0; i < 3; ++i) covered += runner::shard(points, i, 3, registry).size();
  if (covered != points.size())
    violated("shards do not cover the points once", std::to_string(covered));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const runner::Registry& registry = runner::Registry::instance();
  try {
    const runner::ExperimentSpec spec = runner::parse_config(text, "fuzz.yaml");
    check_points(runner::expand(spec, registry), registry);
  } catch (const runner::ConfigError& e) {
    check_error(e);
  }
  return 0;
}
