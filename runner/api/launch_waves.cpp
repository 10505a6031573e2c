#include "runner/api/launch_waves.hpp"

namespace runner {

nlohmann::json launch_fields(std::int64_t blocks, std::int64_t threads_per_block,
                             const LaunchWaves& w) {
  return {{"grid_blocks", blocks},
          {"block_threads", threads_per_block},
          {"launch_warps", w.launch_warps},
          {"resident_warps", w.resident_warps}};
}

}  // namespace runner
