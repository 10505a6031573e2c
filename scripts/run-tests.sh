#!/usr/bin/env bash
# scripts/run-tests.sh [FUZZ_SECONDS]: the test stages of `make test`, after scripts/setup.sh has
# built everything; each stage is timed and every stage runs even when an earlier one failed.
#   ctest              the whole suite of build/, in parallel (one test per core): the tests that
#                      must not overlap carry RUN_SERIAL (timing-sensitive) or RESOURCE_LOCK
#                      (one Slurm cluster at a time) in their CMakeLists.txt
#   sanitize-and-fuzz  the unit tests under ASan/UBSan and the config fuzzer (build-check/, clang)
#   hip                the HIP build's unit and CLI tests (build-hip/)
# Where a stage fails, the end of the output says what failed: each failing test's last lines of
# output (scripts/failed-tests.sh), or the failed stage's last lines, so that a log cut to its tail
# still names the cause.
set -uo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
fuzz_seconds=${1:-${FUZZ_SECONDS:-60}}
failed=()
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
stage() {
  local name=$1 t0 status
  shift
  t0=$(date +%s)
  echo "== stage $name"
  if "$@" 2>&1 | tee "$logs/$name.log"; then status=passed; else
    status=FAILED
    failed+=("$name")
  fi
  echo "== stage $name: $status in $(($(date +%s) - t0)) s"
}
stage ctest ctest --test-dir "$build_dir" --output-on-failure --timeout 900 -j "$jobs"
stage sanitize-and-fuzz scripts/sanitize-and-fuzz.sh "$fuzz_seconds"
stage hip scripts/hip-check.sh
if ((${#failed[@]})); then
  for name in "${failed[@]}"; do
    echo "== what failed in stage $name"
    case $name in
      ctest) scripts/failed-tests.sh "$build_dir" 60 || tail -n 60 "$logs/$name.log" ;;
      hip) scripts/failed-tests.sh "${HIP_BUILD_DIR:-build-hip}" 60 || tail -n 60 "$logs/$name.log" ;;
      *) tail -n 60 "$logs/$name.log" ;;
    esac
  done
  echo "run-tests: failed stages: ${failed[*]}"
  exit 1
fi
echo "run-tests: every stage passed"
