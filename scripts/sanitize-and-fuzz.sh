#!/usr/bin/env bash
# The checking builds of `make test`: the unit tests under AddressSanitizer and
# UndefinedBehaviorSanitizer, and the config fuzzer (libFuzzer) for a bounded time, both from one
# clang build of the host code (CUDA off) in build-check/. It is a Debug build (-O0 -g): the
# sanitizers see every access as written, and clang compiles it in 40-60 % of the time of -O2 -g.
#   scripts/sanitize-and-fuzz.sh [FUZZ_SECONDS]   (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-${FUZZ_SECONDS:-60}}
dir=${CHECK_BUILD_DIR:-build-check}
if ! command -v clang++ >/dev/null; then
  echo "sanitize-and-fuzz: clang++ not found (scripts/setup.sh installs it)" >&2
  exit 1
fi
if [[ ! -f $dir/build.ninja ]]; then
  CC=clang CXX=clang++ cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DRUNNER_CUDA=OFF \
    -DRUNNER_FUZZ=ON -DRUNNER_SANITIZE=address,undefined >/dev/null
fi
cmake --build "$dir" -j "${JOBS:-$(nproc)}" --target runner_unit_tests config_fuzzer
echo "== unit tests under ASan + UBSan"
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
  "$dir/tests/unit/runner_unit_tests" --gtest_brief=1
echo "== config fuzzer, $seconds s"
tests/fuzz/run_fuzz.sh "$dir" "$seconds"
