// runner/api/pinned_choice.hpp: the variables that pin a variant's timed choice (RUNNER_DMMA_TILES,
// RUNNER_CONV2D_FORM, ...), read the same way by every variant.
#include "runner/api/pinned_choice.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "runner/api/errors.hpp"
#include "tests/unit/scoped_env.hpp"

namespace runner {
namespace {

using testing::ScopedEnv;
constexpr const char* kPin = "RUNNER_TEST_PINNED_CHOICE";

TEST(PinnedChoice, UnsetOrEmptyPinsNothing) {
  const ScopedEnv unset(kPin, "");
  EXPECT_EQ(pinned_choice(kPin, {"grid", "persistent"}, "timed"), std::nullopt);
}

TEST(PinnedChoice, AValueNamesItsIndex) {
  const std::array<std::string_view, 3> tiles{"128x128", "64x64", "64x64-2w"};
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    const ScopedEnv pin(kPin, std::string(tiles[i]));
    EXPECT_EQ(pinned_choice(kPin, tiles, "timed"), i) << tiles[i];
  }
  // Whole names only: a prefix or another case is not one of them.
  for (const char* near : {"64x6", "64X64", "64x64 ", "64x64-2"}) {
    const ScopedEnv pin(kPin, near);
    EXPECT_THROW(pinned_choice(kPin, tiles, "timed"), PointInvalid) << near;
  }
}

TEST(PinnedChoice, AnUnknownValueIsInvalidWithTheValuesItTakes) {
  const ScopedEnv pin(kPin, "fastest");
  const auto message = [](const auto& names) {
    try {
      pinned_choice(kPin, names, "the faster, timed at set-up");
    } catch (const PointInvalid& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(std::vector<std::string_view>{"vector"}),
            "RUNNER_TEST_PINNED_CHOICE is 'fastest': vector (unset: the faster, timed at set-up)");
  EXPECT_EQ(message(std::array<std::string_view, 2>{"vector", "scalar"}),
            "RUNNER_TEST_PINNED_CHOICE is 'fastest': vector or scalar (unset: the faster, timed "
            "at set-up)");
  EXPECT_EQ(message(std::array<std::string_view, 3>{"128x32", "32x128", "256x16"}),
            "RUNNER_TEST_PINNED_CHOICE is 'fastest': 128x32, 32x128 or 256x16 (unset: the "
            "faster, timed at set-up)");
}

}  // namespace
}  // namespace runner
