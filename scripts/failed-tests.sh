#!/usr/bin/env bash
# scripts/failed-tests.sh BUILD_DIR [LINES]: what the last `ctest` of BUILD_DIR printed for each
# test that failed, its last LINES lines (default 40). run-tests.sh calls it at its very end: a
# suite prints pages after its failures (the later stages too), and a CI log that keeps only its
# tail would otherwise say that a stage failed, not which test or why. Exits 1 where the last ctest
# of BUILD_DIR had no failing test (the stage failed some other way: its own output says how).
set -uo pipefail
dir=$1
lines=${2:-40}
failed=$dir/Testing/Temporary/LastTestsFailed.log
log=$dir/Testing/Temporary/LastTest.log
# ctest leaves the list of an earlier failing run in place when a later run passes.
if [[ ! -f $failed || ! -f $log ]] || (($(stat -c %Y "$failed") + 2 < $(stat -c %Y "$log"))); then
  echo "failed-tests: no failing test in the last ctest of $dir"
  exit 1
fi
echo "failed-tests: $(wc -l <"$failed") failing test(s) in $dir:"
# LastTestsFailed.log: "NUMBER:NAME" lines. LastTest.log: one block a test, from
# "I/N Test: NAME" to '"NAME" end time:'.
awk -v lines="$lines" '
  FNR == NR { sub(/^[0-9]+:/, ""); want[$0] = 1; next }
  match($0, /^[0-9]+\/[0-9]+ Test: /) { name = substr($0, RLENGTH + 1); n = 0; out = 0; next }
  name == "" { next }
  $0 == "<end of output>" { out = 0; next }
  out && !($0 ~ /^-+$/ && n == 0) { buf[n++] = $0 }
  $0 == "Output:" { out = 1 }
  index($0, "\"" name "\" end time:") == 1 {
    if (name in want) {
      print "---- " name " (its last " (n > lines ? lines : n) " lines of output)"
      for (i = (n > lines ? n - lines : 0); i < n; i++) print buf[i]
    }
    name = ""
  }
' "$failed" "$log"
