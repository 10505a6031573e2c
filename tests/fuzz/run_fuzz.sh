#!/usr/bin/env bash
# Runs the config fuzzer for a bounded time and prints how many inputs it executed.
#   tests/fuzz/run_fuzz.sh BUILD_DIR SECONDS
# BUILD_DIR is a build configured with -DRUNNER_FUZZ=ON and clang, e.g.
#   CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DRUNNER_FUZZ=ON -DBUILD_TESTING=OFF
#   cmake --build build-fuzz --target config_fuzzer
# Seeds come from tests/cli/bad_configs and configs/; inputs that grow coverage are kept in
# BUILD_DIR/fuzz-corpus (so later runs start from them) and crashes go to BUILD_DIR/fuzz-crashes.
# Exit status: 0 when no crash was found, 1 otherwise (the reproducer's path is printed).
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
seconds=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
fuzzer="$build/tests/fuzz/config_fuzzer"
[[ -x "$fuzzer" ]] || { echo "$fuzzer not built (configure with -DRUNNER_FUZZ=ON and clang)" >&2; exit 2; }

corpus="$build/fuzz-corpus"
crashes="$build/fuzz-crashes"
mkdir -p "$corpus" "$crashes"
log="$build/fuzz.log"
# The YAML keywords of the config format, so that mutations produce keys the parser knows.
dict="$build/fuzz.dict"
{
  for w in experiment description kernel variant size dtype block threads kernel_size grid print \
           repeat warmup min_samples max_samples target_rsd max_seconds baseline verify seed \
           timeout_s sweeps exclude slurm partition account qos time gres constraint cpus throttle \
           extra m n k float double gemm transpose conv2d hello omp_serial omp_blocked pow2 range; do
    echo "\"$w\""
  done
  for t in ': ' '- ' '[' ']' '{' '}' ', ' '&a ' '*a' '32x8' '\x0a  ' '\x0a    - '; do echo "\"$t\""; done
} > "$dict"

status=0
# -rss_limit_mb: a config that makes the runner allocate without bound is a finding too;
# -malloc_limit_mb reports a single huge allocation at once, with its stack and the input (the
# RSS watchdog alone once hung in its report, under LeakSanitizer, instead of writing the input).
# -timeout=60: the largest matrix the runner accepts (100000 points) takes under a second to
# expand in a release build and some 16 s under ASan and coverage (32 with libFuzzer's second,
# leak-checking run of it); an input slower than that is a finding (one of 88800 points took 87 s
# when the expansion's sort spelled two keys a comparison).
# `timeout`: whatever the fuzzer does, this script ends.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} timeout -s KILL $((seconds + 240)) \
  "$fuzzer" "$corpus" "$root/tests/cli/bad_configs" "$root/configs" \
  -dict="$dict" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=2048 \
  -malloc_limit_mb=1024 -max_len=8192 \
  -artifact_prefix="$crashes/" -print_final_stats=1 > "$log" 2>&1 || status=$?

execs=$(grep -E '^stat::number_of_executed_units:' "$log" | awk '{print $2}' | tail -n 1 || true)
echo "executions: ${execs:-unknown} in ${seconds} s (log: $log)"
if [[ $status -ne 0 ]]; then
  echo "the fuzzer stopped with status $status:" >&2
  grep -E 'ERROR|invariant violated|Test unit written' "$log" >&2 || tail -n 30 "$log" >&2
  exit 1
fi
