#include "runner/api/workload.hpp"

#include <chrono>

namespace runner {

namespace {
long long now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

void SteadyClock::start() {
  start_ns_ = now_ns();
}
double SteadyClock::stop_ms() {
  return static_cast<double>(now_ns() - start_ns_) * 1e-6;
}

nlohmann::json Workload::extra_fields() const {
  return nlohmann::json::object();
}

}  // namespace runner
