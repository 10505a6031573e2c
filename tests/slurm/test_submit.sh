#!/usr/bin/env bash
# tests/slurm/test_submit.sh -- `runner submit / status / collect / submit --resume` end to end on
# a real one-node Slurm cluster (tests/slurm/cluster.sh), with the real runner:
#   * usage errors and --dry-run (no cluster needed);
#   * smoke: tests/slurm/smoke_cpu.yaml (21 CPU points) as 3 shards + collect: the merged CSV holds
#     every point once, the same ids as `runner CONFIG --dry-run`, speedup across shards, and a
#     second collect gives the same files;
#   * configs/smoke.yaml too when it exists (CUDA points are recorded skipped here: no GPU);
#   * killed: 5 shards with throttle %1 on a cluster with MaxArraySize=3 (so shards 3-4 go
#     through a shard map); two pending elements are cancelled; collect reports exactly their
#     points missing (exit 4); `submit --resume` resubmits just those two shards and completes;
#   * time limit: 2 shards of 3-second points with --time=2: shard 0 gets Slurm's SIGTERM and
#     drains (exit 143), shard 1 is scancel'ed while running; records stay valid, collect lists
#     the rest as missing, status says interrupted / killed, and `submit --resume` finishes both,
#     keeping the records already there.
# Prints the measured figures (end-to-end time, what killed and drained shards left) at the end.
# Root only (cluster.sh). About 2 minutes on 2 cores.
#
#   RUNNER_BIN=build/bin/runner tests/slurm/test_submit.sh     # KEEP=1 keeps the work directory

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CLUSTER=$HERE/cluster.sh
# shellcheck source=tests/slurm/lib.sh
source "$HERE/lib.sh"
skip_unless_root

find_runner
# The templates of this source tree, wherever the binary was built.
export RUNNER_JOBS_DIR=$ROOT/jobs
PY=/usr/bin/python3

WORK=$(mktemp -d "${TMPDIR:-/tmp}/slurmsub.XXXXXX")
# A run measures the machine's ceilings before its first point when none are stored: do it once
# here, so that shards start on their points at once (the time-limit test counts on it).
export RUNNER_CALIBRATION_DIR=$WORK/calibration
"$RUNNER" calibrate --cpu-only --out "$RUNNER_CALIBRATION_DIR" >"$WORK/calibrate.log" 2>&1 || true
chmod 755 "$WORK"
# CTest's SIGKILL at its TIMEOUT would leave the daemons running: stop ourselves first.
start_watchdog "${TEST_DEADLINE_S:-600}"
cleanup() {
    local rc=$?
    kill "$WATCHDOG" 2>/dev/null || true
    stop_cluster_and_exit "$rc"
}
trap cleanup EXIT
trap 'echo "# test_submit.sh: interrupted (or past its ${DEADLINE_S} s deadline)" >&2; exit 130' INT TERM

T_START=$(t_now)

# ------------------------------------------------------------------ helpers --
# (array_ids, collect_id, job_ended, wait_collect: tests/slurm/lib.sh)


# Point ids of a CSV column point_id, one per line, sorted (duplicates kept).
csv_ids() {
    "$PY" -c 'import csv, sys
for row in csv.DictReader(open(sys.argv[1], newline="")): print(row["point_id"])' "$1" | sort
}

# Point ids `runner CONFIG --dry-run` plans.
planned_ids() { "$RUNNER" "$1" --dry-run | awk 'length($1) == 17 && $1 ~ /^p[0-9a-f]+$/ { print $1 }' | sort; }

# json FILE EXPR: evaluate a Python expression on the parsed JSON file (as d).

# Every line of a JSONL file parses, and prints the count.
jsonl_count() {
    "$PY" -c 'import json, sys
n = 0
for line in open(sys.argv[1]):
    json.loads(line); n += 1
print(n)' "$1"
}

# ------------------------------------------------- usage errors, dry run --
SMOKE=$HERE/smoke_cpu.yaml
DRAIN=$HERE/drain_cpu.yaml
N_SMOKE=$(planned_ids "$SMOKE" | wc -l)
check "smoke_cpu.yaml plans 21 points ($N_SMOKE)" test "$N_SMOKE" -eq 21

rc=0
"$RUNNER" submit "$SMOKE" --tasks 22 --out "$WORK/x" --dry-run >/dev/null 2>"$WORK/err" || rc=$?
check "--tasks above the number of points is a usage error (exit $rc)" test "$rc" -eq 2
rc=0
"$RUNNER" submit "$SMOKE" --tasks 2 --out "$WORK/with space" --dry-run >/dev/null 2>"$WORK/err" || rc=$?
check "a results directory with a space is refused (exit $rc)" test "$rc" -eq 2
rc=0
"$RUNNER" submit "$SMOKE" --tasks 2 --out "$WORK/x" --dry-run -- notanoption >/dev/null 2>"$WORK/err" || rc=$?
check "an sbatch option without '-' is refused (exit $rc)" test "$rc" -eq 2
rc=0
"$RUNNER" status "$WORK" >/dev/null 2>&1 || rc=$?
check "status of a directory without a submit manifest fails (exit $rc)" test "$rc" -ne 0

DRY=$WORK/dry
if out=$("$RUNNER" submit "$SMOKE" --tasks 4 --out "$DRY" --throttle 2 --partition debug --dry-run \
    -- --mail-type END --comment=x 2>&1); then
    ok "submit --dry-run succeeds"
else
    not_ok "submit --dry-run succeeds" "$out"
fi
check "dry run submits nothing and writes no manifest" test ! -e "$DRY/manifest.json"
grep_script() { grep -qxF -- "$1" "$DRY/slurm/shard.sbatch"; }
check "rendered: --array=0-3%2" grep_script "#SBATCH --array=0-3%2"
check "rendered: --cpus-per-task=2 (largest threads value)" grep_script "#SBATCH --cpus-per-task=2"
check "rendered: --partition=debug" grep_script "#SBATCH --partition=debug"
check "rendered: extra lines '--mail-type END' and '--comment=x'" \
    bash -c "grep -qxF -- '#SBATCH --mail-type END' '$DRY/slurm/shard.sbatch' && grep -qxF -- '#SBATCH --comment=x' '$DRY/slurm/shard.sbatch'"
check "rendered: no --gres for a CPU-only matrix" bash -c "! grep -q '^#SBATCH --gres' '$DRY/slurm/shard.sbatch'"
# Several GPUs a shard: --gpus-per-task, and no default --gres gpu:1 beside it.
GDRY=$WORK/gdry
"$RUNNER" submit "$ROOT/configs/hello.yaml" --tasks 2 --out "$GDRY" --gpus-per-task 4 --dry-run >/dev/null 2>&1
check "rendered: --gpus-per-task=4 for a shard of 4 GPUs" grep -qxF -- "#SBATCH --gpus-per-task=4" "$GDRY/slurm/shard.sbatch"
check "rendered: no --gres beside --gpus-per-task" bash -c "! grep -q '^#SBATCH --gres' '$GDRY/slurm/shard.sbatch'"
GDRY1=$WORK/gdry1
"$RUNNER" submit "$ROOT/configs/hello.yaml" --tasks 2 --out "$GDRY1" --dry-run >/dev/null 2>&1
check "rendered: --gres=gpu:1 for a GPU matrix by default" grep -qxF -- "#SBATCH --gres=gpu:1" "$GDRY1/slurm/shard.sbatch"
check "rendered: the shard runs the config copy in the run directory" \
    grep -q -- "$RUNNER $DRY/config.yaml --shard \"\${shard}/4\" --out $DRY " "$DRY/slurm/shard.sbatch"
check "rendered scripts have no field left" bash -c "! grep -q '{{' '$DRY'/slurm/*.sbatch"

# ------------------------------------------------------------------ cluster --
# MaxArraySize=3: array indices 0-2, so --tasks 5 needs a second, mapped array.
if env_line=$(CLUSTER_MAX_ARRAY_SIZE=3 "$CLUSTER" start "$WORK"); then ok "cluster starts"; else
    not_ok "cluster starts"
    finish || true
    exit 1
fi
eval "$env_line"
cd "$WORK"
# From here on every outcome is a check: a failing command must fail its check, not end the test
# before the others ran (the EXIT trap still stops the cluster).
set +e

# -------------------------------------------------------------------- smoke --
S=$WORK/smoke
t0=$(t_now)
out=$("$RUNNER" submit "$SMOKE" --tasks 3 --out "$S" --time 5 2>&1) || true
T_SUBMIT=$(t_since "$t0")
A=$(array_ids "$out")
C=$(collect_id "$out")
if [[ $A =~ ^[0-9]+$ && $C =~ ^[0-9]+$ ]] && grep -q "^results: $S\$" <<<"$out"; then
    ok "submit prints the array job ($A), the collect job ($C) and the results directory (${T_SUBMIT} s)"
else
    not_ok "submit prints array job, collect job and results directory" "$out"
fi
check "one array, --array=0-2" grep -qxF -- "#SBATCH --array=0-2" "$S/slurm/shard.sbatch"
check "collect job depends on the array (afterany)" bash -c "scontrol -o show job $C | grep -q 'Dependency=afterany:${A}_\\*'"
wait_collect smoke "$C" 120
T_SMOKE=$(t_since "$t0")
check "smoke: collect job COMPLETED with exit 0:0" test "$(job_field "$C" JobState) $(job_field "$C" ExitCode)" = "COMPLETED 0:0"
csv_ids "$S/records.csv" >"$WORK/smoke.got"
planned_ids "$SMOKE" >"$WORK/smoke.want"
check "smoke: records.csv holds $(wc -l <"$WORK/smoke.got") rows, each point once" \
    test -z "$(uniq -d "$WORK/smoke.got")"
check "smoke: records.csv point ids = runner --dry-run point ids" cmp -s "$WORK/smoke.got" "$WORK/smoke.want"
check "smoke: records.jsonl holds 21 valid records" test "$(jsonl_count "$S/records.jsonl")" -eq 21
check "smoke: manifest state complete, 21 records" test "$(json "$S/manifest.json" 'd["state"], d["records"]')" = "('complete', 21)"
check "smoke: every point ran in an element of array $A" test "$(json "$S/manifest.json" 'len(d["slurm"]["shards"])')" = 3
speedups() {
    "$PY" - "$S/records.csv" <<'EOF'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
plan = {p["point_id"]: p["shard"] for p in json.load(open(sys.argv[1].replace("records.csv", "manifest.json")))["points"]}
base = {(r["m"]): plan[r["point_id"]] for r in rows if r["is_baseline"] == "true"}
cross = [r for r in rows if r["is_baseline"] != "true" and plan[r["point_id"]] != base[r["m"]]]
ok = all(r["speedup"] not in ("", None) for r in rows if r["status"] == "ok")
print(f"{len(cross)} {'ok' if ok and cross else 'bad'}")
EOF
}
sp=$(speedups)
check "smoke: every ok point has a speedup, ${sp%% *} of them against a baseline in another shard" test "${sp#* }" = ok
cp "$S/records.jsonl" "$WORK/smoke.jsonl.1"
cp "$S/records.csv" "$WORK/smoke.csv.1"
rc=0
"$RUNNER" collect "$S" >"$WORK/collect2.out" 2>&1 || rc=$?
check "smoke: a second collect exits 0 ($rc) and writes the same records" \
    bash -c "cmp -s '$S/records.jsonl' '$WORK/smoke.jsonl.1' && cmp -s '$S/records.csv' '$WORK/smoke.csv.1' && [ $rc -eq 0 ]"
"$RUNNER" status "$S" >"$WORK/status.smoke" 2>&1 || true
check "smoke: status shows 3 done shards" grep -q '^shards: 3 done$' "$WORK/status.smoke"
check "smoke: records carry slurm_job_id $A and node" \
    bash -c "$PY -c 'import csv,sys; rows=list(csv.DictReader(open(\"$S/records.csv\"))); sys.exit(not all(r[\"slurm_job_id\"]==\"$A\" and r[\"node\"] for r in rows))'"

# ------------------------------------------------------- configs/smoke.yaml --
if [[ -f $ROOT/configs/smoke.yaml ]]; then
    P=$WORK/project-smoke
    # The test cluster has no GRES: CUDA points are recorded skipped (no GPU here).
    t0=$(t_now)
    out=$("$RUNNER" submit "$ROOT/configs/smoke.yaml" --tasks 3 --out "$P" --time 10 --gres none 2>&1) || true
    PC=$(collect_id "$out")
    [[ -n $PC ]] || not_ok "configs/smoke.yaml submitted" "$out"
    wait_collect "configs/smoke.yaml" "$PC" 180
    T_PROJECT="configs/smoke.yaml ($(planned_ids "$ROOT/configs/smoke.yaml" | wc -l) points, 3 shards, CUDA points skipped): submit -> collect done $(t_since "$t0") s"
    csv_ids "$P/records.csv" >"$WORK/psmoke.got" 2>/dev/null || true
    planned_ids "$ROOT/configs/smoke.yaml" >"$WORK/psmoke.want"
    check "configs/smoke.yaml: every planned point recorded once ($(wc -l <"$WORK/psmoke.got") of $(wc -l <"$WORK/psmoke.want"); collect $(job_field "$PC" ExitCode))" \
        cmp -s "$WORK/psmoke.got" "$WORK/psmoke.want"
else
    diag "configs/smoke.yaml not found: skipped"
    T_PROJECT="configs/smoke.yaml: not there"
fi

# ------------------------------------------------------------------- killed --
K=$WORK/killed
t0=$(t_now)
out=$("$RUNNER" submit "$SMOKE" --tasks 5 --throttle 1 --out "$K" --time 5 2>&1) || true
mapfile -t KA < <(array_ids "$out")
KC=$(collect_id "$out")
if ((${#KA[@]} == 2)) && [[ -n $KC ]]; then
    ok "5 shards with MaxArraySize=3: two arrays (${KA[*]}) and collect $KC"
else
    not_ok "5 shards with MaxArraySize=3: two arrays and a collect job" "$out"
    KA=(0 0)
fi
# Cancel shard 1 (element 1 of the first array, pending behind the throttle) and shard 4
# (element 1 of the mapped second array, which waits for the first).
scancel "${KA[0]}_1" "${KA[1]}_1" || true
check "the mapped array's map file lists shards 3 and 4" test "$(paste -sd, "$K/slurm/shard_map.part1.txt")" = "3,4"
wait_collect killed "$KC" 120
T_KILLED=$(t_since "$t0")
check "killed: collect job FAILED with exit 4:0 (points missing)" test "$(job_field "$KC" JobState) $(job_field "$KC" ExitCode)" = "FAILED 4:0"
want_missing=$(json "$K/manifest.json" '",".join(sorted(p["point_id"] for p in d["points"] if p["shard"] in (1, 4)))')
got_missing=$(json "$K/manifest.json" '",".join(sorted(p["point_id"] for p in d["missing"]))')
check "killed: manifest lists exactly the points of shards 1 and 4 as missing ($(tr -cd , <<<"$got_missing" | wc -c)+1)" \
    test "$want_missing" = "$got_missing"
check "killed: manifest state partial" test "$(json "$K/manifest.json" 'd["state"]')" = partial
klog=$(ls "$K"/logs/collect_"$KC".out 2>/dev/null || true)
check "killed: collect log names shard 1 (job ${KA[0]}_1) and shard 4 (job ${KA[1]}_1)" \
    bash -c "grep -q '^shard 1 (job ${KA[0]}_1): .* missing' '$klog' && grep -q '^shard 4 (job ${KA[1]}_1): .* missing' '$klog'"
"$RUNNER" status "$K" >"$WORK/status.killed" 2>&1 || true
check "killed: status shows shards 1 and 4 missing, 3 done" \
    bash -c "grep -q '^1  *missing ' '$WORK/status.killed' && grep -q '^4  *missing ' '$WORK/status.killed' && grep -q '3 done' '$WORK/status.killed'"
K_LEFT="cancelled while pending: no job record (scontrol: $(scontrol -o show job "${KA[0]}_1" 2>&1 | head -c 60 || true)), $(ls "$K"/logs/"${KA[0]}"_1.* 2>/dev/null | wc -l || true) log files, $(ls "$K"/shards/1.* 2>/dev/null | wc -l || true) shard files"

t0=$(t_now)
out=$("$RUNNER" submit --resume "$K" 2>&1) || true
mapfile -t RA < <(array_ids "$out")
RC=$(collect_id "$out")
check "resume: resubmits shards 1 and 4 only" grep -q '^resubmitting 2 of 5 shards (1,4)' <<<"$out"
check "resume: shard 1 as element 1 of a new array, shard 4 through a map" \
    bash -c "grep -qxF -- '#SBATCH --array=1%1' '$K/slurm/shard.resume1.sbatch' && test \"\$(cat '$K/slurm/shard_map.resume1.part1.txt')\" = 4"
check "resume: shards run with --resume" grep -q -- '--out [^ ]* --resume *&$' "$K/slurm/shard.resume1.sbatch"
check "first submission: shards run with --resume too (a requeued shard keeps its records)" \
    grep -q -- '--out [^ ]* --resume *&$' "$K/slurm/shard.sbatch"
wait_collect resume "$RC" 120
T_RESUME=$(t_since "$t0")
check "resume: collect job COMPLETED with exit 0:0" test "$(job_field "$RC" JobState) $(job_field "$RC" ExitCode)" = "COMPLETED 0:0"
csv_ids "$K/records.csv" >"$WORK/killed.got"
check "resume: records.csv = every planned point once" cmp -s "$WORK/killed.got" "$WORK/smoke.want"
job_of_shards() {
    "$PY" - "$K" "$1" "$2" <<'EOF'
import csv, json, sys
d = sys.argv[1]
shards = {p["point_id"]: p["shard"] for p in json.load(open(d + "/manifest.json"))["points"]}
want = set(int(s) for s in sys.argv[2].split(","))
jobs = {r["slurm_job_id"] for r in csv.DictReader(open(d + "/records.csv")) if shards[r["point_id"]] in want}
print(sorted(jobs, key=int) == sorted(sys.argv[3].split(), key=int))
EOF
}
check "resume: shards 0, 2 and 3 keep their first records (jobs ${KA[*]})" test "$(job_of_shards 0,2,3 "${KA[*]}")" = True
check "resume: shards 1 and 4 were run by the resubmitted arrays (${RA[*]})" test "$(job_of_shards 1,4 "${RA[*]}")" = True
out=$("$RUNNER" submit --resume "$K" 2>&1) || true
check "resume again: nothing to resubmit" grep -q '^nothing to resubmit' <<<"$out"

# --------------------------------------------------------------- time limit --
D=$WORK/drain
t0=$(t_now)
# --time=2 with the template's --signal=B:TERM@60: Slurm sends the warning 30-90 s after the start
# (it checks limits every 30 s), late enough for shard 1 to record 3 points first even on a loaded
# machine, early enough that shard 0 (about 120 s of 3-second points) is always cut short.
out=$("$RUNNER" submit "$DRAIN" --tasks 2 --time 2 --out "$D" 2>&1) || true
DA=$(array_ids "$out")
DC=$(collect_id "$out")
[[ -n $DA && -n $DC ]] || not_ok "drain run submitted" "$out"
# Shard 1: scancel while it runs, once it has recorded 3 points.
three_records() { [[ -s $D/shards/1.jsonl && $(wc -l <"$D/shards/1.jsonl") -ge 3 ]]; }
if wait_until 60 three_records; then
    scancel "${DA}_1"
    ok "shard 1 scancel'ed while running, after $(wc -l <"$D/shards/1.jsonl") records"
else
    not_ok "shard 1 recorded 3 points within 60 s"
fi
wait_collect drain "$DC" 240
T_DRAIN=$(t_since "$t0")
st0="$(job_field "${DA}_0" JobState) $(job_field "${DA}_0" ExitCode)"
st1="$(job_field "${DA}_1" JobState) $(job_field "${DA}_1" ExitCode)"
check "drain: shard 0 ended FAILED 143:0, drained before the limit ($st0)" test "$st0" = "FAILED 143:0"
check "drain: shard 0 .exit file says exit=143 drained=1" grep -q '^exit=143 .* shard=0 .* drained=1 restarts=0$' "$D/logs/${DA}_0.exit"
check "drain: the jobcomp record of shard 0 says FAILED, ExitCode=143:0" \
    bash -c "grep 'ArrayJobId=$DA ArrayTaskId=0 ' '$WORK/log/jobcomp.log' | grep 'JobState=FAILED ' | grep -q 'ExitCode=143:0'"
check "drain: shard 0 manifest state interrupted" test "$(json "$D/shards/0.manifest.json" 'd["state"]')" = interrupted
n0=$(jsonl_count "$D/shards/0.jsonl" 2>/dev/null || echo 0)
n1=$(jsonl_count "$D/shards/1.jsonl" 2>/dev/null || echo 0)
planned0=$(json "$D/manifest.json" 'sum(1 for p in d["points"] if p["shard"] == 0)')
planned1=$(json "$D/manifest.json" 'sum(1 for p in d["points"] if p["shard"] == 1)')
check "drain: shard 0 kept $n0 valid records of $planned0 (some, not all)" test "$n0" -gt 0 -a "$n0" -lt "$planned0"
check "drain: shard 1 kept $n1 valid records of $planned1 (some, not all)" test "$n1" -gt 0 -a "$n1" -lt "$planned1"
check "drain: collect job FAILED with exit 4:0" test "$(job_field "$DC" JobState) $(job_field "$DC" ExitCode)" = "FAILED 4:0"
nmiss=$(json "$D/manifest.json" 'len(d["missing"])')
check "drain: collect lists $nmiss pending points = planned - recorded" test "$nmiss" -eq $((planned0 + planned1 - n0 - n1))
"$RUNNER" status "$D" >"$WORK/status.drain" 2>&1 || true
check "drain: status shows shard 0 interrupted at the time limit, shard 1 cancelled" \
    bash -c "grep -q '^0  *interrupted .*drained at the time limit' '$WORK/status.drain' && grep -q '^1  *[a-z]* .*CANCELLED' '$WORK/status.drain'"
term_at=$(sed -n 's/^\[shard.sbatch\] \([^ ]*\) SIGTERM.*/\1/p' "$D/logs/${DA}_0.out" | tail -n 1)
start_at=$(sed -n 's/^exit=.* start=\([^ ]*\) .*/\1/p' "$D/logs/${DA}_0.exit" | tail -n 1)
end_at=$(sed -n 's/^exit=.* end=\([^ ]*\) .*/\1/p' "$D/logs/${DA}_0.exit" | tail -n 1)
lead=$(($(date -d "$term_at" +%s) - $(date -d "$start_at" +%s)))
drain_s=$(($(date -d "$end_at" +%s) - $(date -d "$term_at" +%s)))
D0_LEFT="SIGTERM ${lead} s after start, runner out ${drain_s} s later: $st0, $n0/$planned0 records, .exit drained=1, shard manifest interrupted"
D1_LEFT="$st1, $n1/$planned1 records, .exit $(grep -o '^exit=[0-9]* .*drained=[01]' "$D/logs/${DA}_1.exit" 2>/dev/null | sed 's/ job=.* drained/ drained/' || echo none), shard manifest $(json "$D/shards/1.manifest.json" 'd["state"]' 2>/dev/null || echo none)"
first0=$(head -n 1 "$D/shards/0.jsonl")

t0=$(t_now)
out=$("$RUNNER" submit --resume "$D" --time 5 2>&1) || true
DRC=$(collect_id "$out")
check "drain resume: resubmits both shards with --time 5" grep -q '^resubmitting 2 of 2 shards (0-1)' <<<"$out"
wait_collect "drain resume" "$DRC" 240
T_DRAIN_RESUME=$(t_since "$t0")
check "drain resume: collect COMPLETED 0:0" test "$(job_field "$DRC" JobState) $(job_field "$DRC" ExitCode)" = "COMPLETED 0:0"
check "drain resume: shard 0 kept its first record as it was" test "$(head -n 1 "$D/shards/0.jsonl")" = "$first0"
csv_ids "$D/records.csv" >"$WORK/drain.got"
planned_ids "$DRAIN" >"$WORK/drain.want"
check "drain resume: every planned point once" cmp -s "$WORK/drain.got" "$WORK/drain.want"

# ------------------------------------------------------------------ figures --
T_TOTAL=$(t_since "$T_START")
echo "# figures (one-node cluster, $(nproc) cores):"
echo "#   smoke_cpu.yaml (21 points, 3 shards): submit returned in ${T_SUBMIT} s; submit -> collect done ${T_SMOKE} s"
echo "#   ${T_PROJECT}"
echo "#   killed (5 shards, %1, 2 cancelled pending): ${T_KILLED} s; resume of 2 shards ${T_RESUME} s"
echo "#   a pending element cancelled leaves: ${K_LEFT}"
echo "#   timed-out shard (--time=2): ${D0_LEFT}"
echo "#   running shard scancel'ed: ${D1_LEFT}"
echo "#   drain run ${T_DRAIN} s, its resume ${T_DRAIN_RESUME} s; whole test ${T_TOTAL} s"
finish
