#pragma once
// The factor on the time bounds of the unit tests that prove something is refused before the work
// it would take (an alias bomb, a matrix too large, a huge file): 1 in a release build, more in the
// check build (Debug under ASan and UBSan, several times slower), where the bounds would otherwise
// measure the build instead of the code (tests/unit/CMakeLists.txt sets it).
#ifndef RUNNER_TEST_TIME_SCALE
#define RUNNER_TEST_TIME_SCALE 1
#endif

namespace runner::testing {
inline constexpr double kTimeScale = RUNNER_TEST_TIME_SCALE;
}  // namespace runner::testing
