#!/usr/bin/env bash
# scripts/run-tests.sh [FUZZ_SECONDS]: the test stages of `make test`, after scripts/setup.sh has
# built everything; each stage is timed and every stage runs even when an earlier one failed.
#   ctest              the whole suite of build/, in parallel (one test per core): the tests that
#                      must not overlap carry RUN_SERIAL (timing-sensitive) or RESOURCE_LOCK
#                      (one Slurm cluster at a time) in their CMakeLists.txt
#   sanitize-and-fuzz  the unit tests under ASan/UBSan and the config fuzzer (build-check/, clang)
#   hip                the HIP build's unit and CLI tests (build-hip/)
set -uo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
fuzz_seconds=${1:-${FUZZ_SECONDS:-60}}
failed=()
stage() {
  local name=$1 t0 status
  shift
  t0=$(date +%s)
  echo "== stage $name"
  if "$@"; then status=passed; else
    status=FAILED
    failed+=("$name")
  fi
  echo "== stage $name: $status in $(($(date +%s) - t0)) s"
}
stage ctest ctest --test-dir "$build_dir" --output-on-failure --timeout 900 -j "$jobs"
stage sanitize-and-fuzz scripts/sanitize-and-fuzz.sh "$fuzz_seconds"
stage hip scripts/hip-check.sh
if ((${#failed[@]})); then
  echo "run-tests: failed stages: ${failed[*]}"
  exit 1
fi
echo "run-tests: every stage passed"
