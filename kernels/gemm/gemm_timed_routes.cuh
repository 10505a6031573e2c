#pragma once
// The fastest of a GEMM variant's routes, timed at set-up. A route is one whole way to run the
// problem: a tiling, a kernel instance (16-byte or narrower loads), the operands read as they are
// or from padded copies, and the split of k planned for it. Which one wins moves with the GPU's
// memory and clocks and with the problem's size and alignment (docs/performance.md, Log), so
// `regtile` and `dmma` time the routes that can run instead of ruling between them.
#include <string>
#include <utility>
#include <vector>

#include "kernels/gemm/gemm_padded_operands.cuh"
#include "runner/api/cuda/fastest_launch.hpp"

namespace runner::kernels::gemm {

// The route a variant runs: for each of its `tilings`, add_routes(tiling, true, routes) appends
// the route(s) that read A and B with the widest loads they allow (on their padded copies where
// they are allocated), and, where `both_loads`, add_routes(tiling, false, routes) those that read
// them as they are (with the vector instance where their rows start on 16 bytes, else with the
// narrower one); a variant that times splits of k appends one route
// per split. All are timed with cuda::fastest_candidate (the message says what varied: "tiles",
// "loads", "splits", "tiles and loads", ...) and the fastest is returned; the copies of A and B are
// released where it does not read them (Route::copies).
template <class Route, class Tiling, class AddRoutes, class Launch, class Describe, class T>
Route fastest_route_of_tilings(const std::vector<Tiling>& tilings, bool both_loads,
                               const AddRoutes& add_routes, padded::PaddedOperand<T>& a_rows,
                               padded::PaddedOperand<T>& b_rows, cudaStream_t stream,
                               MeasureMode mode, const Launch& launch, const Describe& describe,
                               std::string& message) {
  std::vector<Route> routes;
  for (const Tiling& tiling : tilings) {
    add_routes(tiling, true, routes);
    if (both_loads) add_routes(tiling, false, routes);
  }
  std::vector<std::string> varied;
  if (tilings.size() > 1) varied.push_back("tiles");
  if (both_loads) varied.push_back("loads");
  if (routes.size() > tilings.size() * (both_loads ? 2 : 1)) varied.push_back("splits");
  std::string what = varied.empty() ? "loads" : varied.front();
  for (std::size_t i = 1; i < varied.size(); ++i)
    what += (i + 1 == varied.size() ? " and " : ", ") + varied[i];
  Route fastest =
      cuda::fastest_candidate(std::move(routes), what, stream, mode, launch, describe, message);
  if (!fastest.copies) {
    a_rows.release();
    b_rows.release();
  }
  return fastest;
}

}  // namespace runner::kernels::gemm
