#pragma once
// The fastest of a GEMM variant's routes, timed at set-up. A route is one whole way to run the
// problem: a tiling, a kernel instance (16-byte or narrower loads), the operands read as they are
// or from padded copies, and the split of k planned for it. Which one wins moves with the GPU's
// memory and clocks and with the problem's size and alignment (docs/performance.md, Log), so
// `regtile` and `dmma` time the routes that can run instead of ruling between them.
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/gemm/gemm_padded_operands.cuh"
#include "runner/api/cuda/fastest_launch.hpp"

namespace runner::kernels::gemm {

// Times every route with cuda::fastest_launch as the point's samples will be taken (`mode`,
// Point::measure; each launch(route) enqueues the route's whole work on `stream`: copies, GEMM and
// split-K sum) and returns the fastest. Where more than one was
// timed, `message` becomes the record's account of it: "WHAT timed at set-up (median of 5 cold
// launches each): PATH 0.0123 ms; PATH 0.0101 ms", each route's describe(route) and median. A
// single route is returned untimed and `message` left as it is.
template <class Route, class Launch, class Describe>
Route fastest_route(std::vector<Route> routes, const std::string& what, cudaStream_t stream,
                    MeasureMode mode, const Launch& launch, const Describe& describe,
                    std::string& message) {
  if (routes.size() == 1) return std::move(routes.front());
  std::vector<std::function<void()>> launches;
  for (const Route& route : routes) launches.emplace_back([&launch, &route] { launch(route); });
  const cuda::LaunchRanking ranking = cuda::fastest_launch(launches, stream, mode);
  message = what + " timed at set-up (" + ranking.rounds_text() + "): ";
  for (std::size_t i = 0; i < routes.size(); ++i) {
    char ms[32];
    std::snprintf(ms, sizeof ms, " %.4f ms", ranking.median_ms[i]);
    message += (i ? "; " : "") + describe(routes[i]) + ms;
  }
  return std::move(routes[ranking.fastest]);
}

// The route a variant runs: for each of its `tilings`, add_routes(tiling, true, routes) appends
// the route(s) that read A and B with the widest loads they allow (on their padded copies where
// they are allocated), and, where `both_loads`, add_routes(tiling, false, routes) those that read
// them as they are with the narrower instance; a variant that times splits of k appends one route
// per split. All are timed as fastest_route does (the message says what varied: "tiles", "loads",
// "splits", "tiles and loads", ...) and the fastest is returned; the copies of A and B are
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
  Route fastest = fastest_route(std::move(routes), what, stream, mode, launch, describe, message);
  if (!fastest.copies) {
    a_rows.release();
    b_rows.release();
  }
  return fastest;
}

}  // namespace runner::kernels::gemm
