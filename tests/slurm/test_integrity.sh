#!/usr/bin/env bash
# tests/slurm/test_integrity.sh -- results of a submitted run are never overwritten, raced, mangled
# or silently dropped: the real runner on a real one-node Slurm cluster (tests/slurm/cluster.sh)
# with max_array_tasks=2, cred_expire=10 and sched_interval=2 (a requeued job may start again
# about 11 s after `scontrol requeue`, not 2-3 minutes).
# Every case checks the exit code, the message, and that no record written before was lost:
#   * submit into a non-empty --out (exit 2), into a folder a local run holds (exit 3), onto a
#     submitted run (exit 2, names `submit --resume`); --cpus 0 / -1 and YAML cpus: 0 (exit 2);
#     local runs onto a submitted run (exit 2; --resume: exit 3); a --dry-run folder is reusable;
#   * requeue: `scontrol requeue` of a running shard; the requeued attempt resumes (records before
#     the requeue kept verbatim), the logs hold both attempts, the shard ends with exactly its
#     planned points, status says "requeued 1x";
#   * node failure: the node is set DOWN under a running shard submitted with --no-requeue;
#     status says NODE_FAIL (not "runner exit 0", which srun reports), collect exits 4 and says
#     why, `submit --resume` completes keeping the earlier records;
#   * max_array_tasks=2: 5 shards go into arrays of at most 2 elements and complete;
#   * collect refuses shards of different builds (exit 3, names them, writes nothing), merges
#     them with --force-mix (recorded), warns about different devices; `submit --resume
#     --force-mix` gives its collect job --force-mix; an edited config.yaml is refused (exit 3);
#   * printed commands are shell-quoted.
# Root only (cluster.sh). About 2 minutes on 2 cores.
#
#   RUNNER_BIN=build/bin/runner tests/slurm/test_integrity.sh     # KEEP=1 keeps the work directory

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CLUSTER=$HERE/cluster.sh
# shellcheck source=tests/slurm/lib.sh
source "$HERE/lib.sh"
skip_unless_root

find_runner
export RUNNER_JOBS_DIR=$ROOT/jobs
PY=/usr/bin/python3
NODE=$(hostname -s)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/slurmint.XXXXXX")
chmod 755 "$WORK"
# Shards measure the machine's ceilings before their first point when none are stored: measure
# them once, in the background while the first checks run.
export RUNNER_CALIBRATION_DIR=$WORK/calibration
"$RUNNER" calibrate --cpu-only --out "$RUNNER_CALIBRATION_DIR" >"$WORK/calibrate.log" 2>&1 &
CALIBRATE=$!
# CTest's SIGKILL at its TIMEOUT would leave the daemons running: stop ourselves first.
start_watchdog "${TEST_DEADLINE_S:-600}"
LOCAL_RUN=""
cleanup() {
    local rc=$?
    kill "$WATCHDOG" 2>/dev/null || true
    [[ -z $LOCAL_RUN ]] || kill "$LOCAL_RUN" 2>/dev/null || true
    kill "$CALIBRATE" 2>/dev/null || true
    # A node left DOWN would keep `cluster.sh stop` waiting for jobs that cannot end.
    [[ -z ${SLURM_CONF:-} ]] || scontrol update nodename="$NODE" state=resume >/dev/null 2>&1 || true
    stop_cluster_and_exit "$rc"
}
trap cleanup EXIT
trap 'echo "# test_integrity.sh: interrupted (or past its ${DEADLINE_S} s deadline)" >&2; exit 130' INT TERM

T_START=$(t_now)

# ------------------------------------------------------------------ helpers --
# (array_ids, collect_id, job_ended, wait_collect: tests/slurm/lib.sh)





# Every line of OLD is in NEW, verbatim: no record written before was lost or rewritten.
lines_kept() {
    "$PY" - "$1" "$2" <<'EOF'
import sys
old = open(sys.argv[1]).read().splitlines()
new = set(open(sys.argv[2]).read().splitlines())
sys.exit(0 if old and all(line in new for line in old) else 1)
EOF
}

# The records of JSONL FILE are exactly the points of shard SHARD in the plan of RUN, once each.
exactly_planned() {
    "$PY" - "$1" "$2" "$3" <<'EOF'
import json, sys
run, shard, jsonl = sys.argv[1], int(sys.argv[2]), sys.argv[3]
plan = sorted(p["point_id"] for p in json.load(open(run + "/manifest.json"))["points"] if p["shard"] == shard)
got = sorted(json.loads(line)["point_id"] for line in open(jsonl))
sys.exit(0 if got == plan else 1)
EOF
}

csv_ids() {
    "$PY" -c 'import csv, sys
for row in csv.DictReader(open(sys.argv[1], newline="")): print(row["point_id"])' "$1" | sort
}
planned_ids() { "$RUNNER" "$1" --dry-run | awk 'length($1) == 17 && $1 ~ /^p[0-9a-f]+$/ { print $1 }' | sort; }
records_at_least() { [[ -s $1 && $(wc -l <"$1") -ge $2 ]]; }
no_jobs() { [[ -z $(squeue -h 2>/dev/null) ]]; }

SMOKE=$HERE/smoke_cpu.yaml
REQ=$HERE/requeue_cpu.yaml

# ------------------------------------------------------------------ cluster --
if env_line=$(CLUSTER_MAX_ARRAY_TASKS=2 CLUSTER_CRED_EXPIRE=10 CLUSTER_SCHED_INTERVAL=2 "$CLUSTER" start "$WORK"); then
    ok "cluster starts (max_array_tasks=2, cred_expire=10, sched_interval=2)"
else
    not_ok "cluster starts"
    finish || true
    exit 1
fi
eval "$env_line"
cd "$WORK"
set +e

# ------------------------------------------- submit: the folder and its lock --
F=$WORK/full
mkdir -p "$F"
echo '{"point_id":"p0000000000000001","status":"ok"}' >"$F/records.jsonl"
cp "$F/records.jsonl" "$WORK/full.before"
rc=$(run_rc "$WORK/full.out" "$RUNNER" submit "$SMOKE" --tasks 2 --out "$F")
expect "submit into a non-empty --out is a usage error" "$rc" 2 "$WORK/full.out" \
    "--out $F is not empty \(it holds records.jsonl\)"
check "... its records.jsonl is untouched, nothing was written or submitted" \
    bash -c "cmp -s '$F/records.jsonl' '$WORK/full.before' && test ! -e '$F/manifest.json' -a ! -e '$F/slurm' && test -z \"\$(squeue -h)\""

# A local run holds its folder's lock (DIR/.runner.lock) while it runs: submit takes the same one.
H=$WORK/held
"$RUNNER" "$REQ" --out "$H" --quiet --no-calibrate >"$WORK/held.run.out" 2>&1 &
LOCAL_RUN=$!
wait_until 30 records_at_least "$H/records.jsonl" 1
cp "$H/records.jsonl" "$WORK/held.before"
rc=$(run_rc "$WORK/held.out" "$RUNNER" submit "$REQ" --out "$H")
expect "submit into the folder of a running local run is refused" "$rc" 3 "$WORK/held.out" \
    "is in use by another runner \((run|resume) pid $LOCAL_RUN "
check "... and wrote nothing into it" test ! -e "$H/slurm" -a ! -e "$H/config.yaml"

for cpus in 0 -1; do
    rc=$(run_rc "$WORK/cpus.out" "$RUNNER" submit "$SMOKE" --tasks 2 --cpus "$cpus" --out "$WORK/cpus$cpus")
    expect "submit --cpus $cpus is a usage error naming --cpus" "$rc" 2 "$WORK/cpus.out" \
        "--cpus must be at least 1, got $cpus"
    check "... and leaves no folder behind" test ! -e "$WORK/cpus$cpus"
done
sed 's/^experiment: slurm-smoke$/experiment: slurm-smoke\nslurm: {cpus: 0}/' "$SMOKE" >"$WORK/cpus0.yaml"
rc=$(run_rc "$WORK/cpus.out" "$RUNNER" submit "$WORK/cpus0.yaml" --tasks 2 --out "$WORK/cpusyaml")
expect "YAML slurm.cpus: 0 is a located config error" "$rc" 2 "$WORK/cpus.out" \
    "^$WORK/cpus0.yaml:[0-9]+:[0-9]+: .*slurm.cpus"

# ----------------------------------------------------------- max_array_tasks --
wait "$CALIBRATE"
M=$WORK/maxtasks
rc=$(run_rc "$WORK/sbatch3.out" sbatch --parsable --array=0-2 --output=/dev/null --wrap true)
expect "the cluster refuses an array of 3 elements (max_array_tasks=2)" "$rc" 1 "$WORK/sbatch3.out" \
    "Invalid job array specification"
# A dry run first: its folder may be reused by the real submission.
"$RUNNER" submit "$SMOKE" --tasks 5 --out "$M" --dry-run >"$WORK/m.dry" 2>&1
t0=$(t_now)
out=$("$RUNNER" submit "$SMOKE" --tasks 5 --cpus 1 --out "$M" 2>&1)
rc=$?
mapfile -t MA < <(array_ids "$out")
MC=$(collect_id "$out")
if [[ $rc == 0 && ${#MA[@]} == 3 && -n $MC ]]; then
    ok "submit into a --dry-run folder; 5 shards as 3 arrays (${MA[*]}) under max_array_tasks=2"
else
    not_ok "5 shards as 3 arrays under max_array_tasks=2" "exit $rc" "$out"
fi
arrays=$(grep -h '^#SBATCH --array=' "$M"/slurm/shard*.sbatch | sed 's/^#SBATCH --array=//' | sort | paste -sd' ')
check "... arrays 0-1, 2-3, 4 (no array above 2 elements): $arrays" test "$arrays" = "0-1 2-3 4"
check "... the manifest records max_array_tasks 2" test "$(json "$M/manifest.json" 'd["slurm"]["max_array_tasks"]')" = 2
wait_collect "max_array_tasks" "$MC" 120
T_MAXTASKS=$(t_since "$t0")
check "max_array_tasks: collect COMPLETED 0:0" test "$(job_field "$MC" JobState) $(job_field "$MC" ExitCode)" = "COMPLETED 0:0"
csv_ids "$M/records.csv" >"$WORK/m.got"
planned_ids "$SMOKE" >"$WORK/m.want"
check "max_array_tasks: records.csv = every planned point once" cmp -s "$WORK/m.got" "$WORK/m.want"

wait "$LOCAL_RUN"
lrc=$?
LOCAL_RUN=""
held_run_ok() {
    [[ $lrc -eq 0 && $(wc -l <"$H/records.jsonl") -eq 12 ]] && lines_kept "$WORK/held.before" "$H/records.jsonl"
}
check "the local run the submit met went on undisturbed: exit $lrc, 12 records, the first ones kept" held_run_ok

# ------------------------------------------- local runs onto a submitted run --
cp "$M/records.jsonl" "$WORK/m.records"
cp "$M/manifest.json" "$WORK/m.manifest"
rc=$(run_rc "$WORK/local.out" "$RUNNER" "$SMOKE" --out "$M" --no-calibrate)
expect "a local run into a submitted run's folder is a usage error" "$rc" 2 "$WORK/local.out" "is not empty"
rc=$(run_rc "$WORK/local.out" "$RUNNER" "$SMOKE" --out "$M" --resume --no-calibrate)
expect "a local --resume of a submitted run is refused" "$rc" 3 "$WORK/local.out" \
    "was made by .runner submit.: resume it with .runner submit --resume"
rc=$(run_rc "$WORK/again.out" "$RUNNER" submit "$SMOKE" --tasks 5 --out "$M")
expect "a second submit onto the run is a usage error pointing to --resume" "$rc" 2 "$WORK/again.out" \
    "holds a run already .*runner submit --resume $M"
check "... records.jsonl and manifest.json untouched by all three" \
    bash -c "cmp -s '$M/records.jsonl' '$WORK/m.records' && cmp -s '$M/manifest.json' '$WORK/m.manifest'"

# ---------------------------------------------- collect: identities of shards --
# Shard 2 measured on another device (a partition with two GPU models): merged, with a warning.
"$PY" - "$M/shards/2.manifest.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); d["identity"]["device"] = "Fake GPU 2"; json.dump(d, open(sys.argv[1], "w"))
EOF
rc=$(run_rc "$WORK/dev.out" "$RUNNER" collect "$M")
expect "collect of shards on two devices: merged, with a warning naming them" "$rc" 0 "$WORK/dev.out" \
    "warning: shards ran on different devices: .*Fake GPU 2 \(shards 2\)"
check "... the manifest records both devices and one identity per device" \
    test "$(json "$M/manifest.json" 'len(d["devices"]), len(d["identities"]), len(d["identities"][0]["devices"]), d["mixed"]')" = "(2, 1, 2, False)"
# Shard 1 made by another build of the runner: refused, nothing written.
"$PY" - "$M/shards/1.manifest.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); d["identity"]["build"] = "0ther0build"; json.dump(d, open(sys.argv[1], "w"))
EOF
cp "$M/records.jsonl" "$WORK/m.records"
cp "$M/records.csv" "$WORK/m.csv"
cp "$M/manifest.json" "$WORK/m.manifest"
rc=$(run_rc "$WORK/mix.out" "$RUNNER" collect "$M")
expect "collect refuses shards of two builds, naming them" "$rc" 3 "$WORK/mix.out" \
    "refusing to merge the shards of $M: .*shard 1: config [0-9a-f]+ \(the submitted config\), build 0ther0build.*runner collect --force-mix"
check "... and writes nothing" \
    bash -c "cmp -s '$M/records.jsonl' '$WORK/m.records' && cmp -s '$M/records.csv' '$WORK/m.csv' && cmp -s '$M/manifest.json' '$WORK/m.manifest'"
rc=$(run_rc "$WORK/mix.out" "$RUNNER" collect --force-mix "$M")
expect "collect --force-mix merges them with a warning" "$rc" 0 "$WORK/mix.out" \
    "warning: --force-mix: merged shards of different configs or builds: .*build 0ther0build"
check "... records every identity (2, shard 1 apart), mixed=true, all 21 records" \
    test "$(json "$M/manifest.json" 'len(d["identities"]), [g["shards"] for g in d["identities"] if g["build"] == "0ther0build"], d["mixed"], d["records"]')" = "(2, [[1]], True, 21)"

# An edited config.yaml: refused before anything is submitted.
cp "$M/config.yaml" "$WORK/m.config"
echo "# edited after submitting" >>"$M/config.yaml"
cp "$M/manifest.json" "$WORK/m.manifest"
rc=$(run_rc "$WORK/edit.out" "$RUNNER" submit --resume "$M")
expect "submit --resume with an edited config.yaml is refused" "$rc" 3 "$WORK/edit.out" \
    "$M/config.yaml was edited after the run was submitted .*Restore the file"
check "... nothing submitted, manifest untouched" bash -c "cmp -s '$M/manifest.json' '$WORK/m.manifest' && test -z \"\$(squeue -h)\""
cp "$WORK/m.config" "$M/config.yaml"

# submit --resume --force-mix: its shards and its collect job get --force-mix. Shard 4 holds a
# failed point (its record says so), so it is resubmitted; shard 1 keeps the other build.
"$PY" - "$M/shards/4.jsonl" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
r = json.loads(lines[0]); r["status"] = "failed"; r["message"] = "made to fail by test_integrity.sh"
open(sys.argv[1], "w").write("\n".join([json.dumps(r)] + lines[1:]) + "\n")
EOF
cp "$M/shards/4.jsonl" "$WORK/m4.before"
t0=$(t_now)
out=$("$RUNNER" submit --resume "$M" --force-mix 2>&1)
rc=$?
FC=$(collect_id "$out")
if [[ $rc == 0 ]] && grep -q '^resubmitting 1 of 5 shards (4): 0 missing and 1 failed points' <<<"$out"; then
    ok "submit --resume --force-mix resubmits shard 4 only"
else
    not_ok "submit --resume --force-mix resubmits shard 4 only" "exit $rc" "$out"
fi
check "... its shard runs --resume --force-mix, its collect job collect --force-mix" \
    bash -c "grep -q -- '--resume --force-mix &$' '$M'/slurm/shard.resume1*.sbatch && grep -q -- ' collect $M --force-mix$' '$M/slurm/collect.resume1.sbatch'"
wait_collect "force-mix resume" "$FC" 120
T_FORCEMIX=$(t_since "$t0")
check "force-mix resume: collect COMPLETED 0:0 (it merged two builds)" \
    test "$(job_field "$FC" JobState) $(job_field "$FC" ExitCode)" = "COMPLETED 0:0"
check "force-mix resume: the collect log warns" grep -q 'warning: --force-mix: merged shards' "$M/logs/collect_$FC.out"
check "force-mix resume: the manifest says mixed, force_mix, 21 ok" \
    test "$(json "$M/manifest.json" 'd["mixed"], d["slurm"]["submissions"][-1]["force_mix"], d["counts"]')" = "(True, True, {'ok': 21})"
tail -n +2 "$WORK/m4.before" >"$WORK/m4.ok"
shard4_ok() { lines_kept "$WORK/m4.ok" "$M/shards/4.jsonl" && exactly_planned "$M" 4 "$M/shards/4.jsonl"; }
check "force-mix resume: shard 4 keeps its ok records verbatim and holds its points once" shard4_ok

# ------------------------------------------------------------------ requeue --
Q=$WORK/requeue
t0=$(t_now)
out=$("$RUNNER" submit "$REQ" --out "$Q" --time 5 2>&1)
QA=$(array_ids "$out")
QC=$(collect_id "$out")
[[ -n $QA && -n $QC ]] || not_ok "requeue run submitted" "$out"
if wait_until 60 records_at_least "$Q/shards/0.jsonl" 3; then
    cp "$Q/shards/0.jsonl" "$WORK/q.before"
    scontrol requeue "${QA}_0"
    ok "shard 0 requeued with scontrol requeue after $(wc -l <"$WORK/q.before") records"
else
    not_ok "shard 0 recorded 3 points within 60 s"
fi
sleep 1
"$RUNNER" status "$Q" >"$WORK/status.q1" 2>&1
check "requeue: status shows the element requeued, not failed or done" \
    grep -qE "^0 +(pending|running) +${QA}_0 .*requeued 1x" "$WORK/status.q1"
wait_collect requeue "$QC" 120
T_REQUEUE=$(t_since "$t0")
check "requeue: the element ended COMPLETED 0:0 after Restarts=1 ($(job_field "${QA}_0" JobState) $(job_field "${QA}_0" ExitCode) Restarts=$(job_field "${QA}_0" Restarts))" \
    test "$(job_field "${QA}_0" JobState) $(job_field "${QA}_0" ExitCode) $(job_field "${QA}_0" Restarts)" = "COMPLETED 0:0 1"
check "requeue: every record written before the requeue is still there, verbatim" lines_kept "$WORK/q.before" "$Q/shards/0.jsonl"
check "requeue: the shard holds exactly its 12 planned points, once each" exactly_planned "$Q" 0 "$Q/shards/0.jsonl"
check "requeue: the .out log holds both attempts" \
    bash -c "grep -q '] .* (${QA}_0) shard 0/1 attempt 1 (restarts=0) ' '$Q/logs/${QA}_0.out' && grep -q '] .* (${QA}_0) shard 0/1 attempt 2 (restarts=1) ' '$Q/logs/${QA}_0.out'"
check "requeue: the .err log holds both runs; the second resumed: $(grep -o 'resuming: [0-9]* points already ok' "$Q/logs/${QA}_0.err")" \
    bash -c "test \$(grep -c 'slurm-requeue: 12 points in shard 0/1' '$Q/logs/${QA}_0.err') -eq 2 && grep -q 'resuming: [1-9][0-9]* points already ok' '$Q/logs/${QA}_0.err'"
check "requeue: no 'holds no records yet' warning for the fresh first attempt" \
    bash -c "! grep -q 'holds no records yet' '$Q/logs/${QA}_0.err'"
check "requeue: the .exit file has a start line per attempt and the second's exit=0" \
    bash -c "test \$(grep -c '^start .* restarts=[01]$' '$Q/logs/${QA}_0.exit') -eq 2 && tail -n 1 '$Q/logs/${QA}_0.exit' | grep -q '^exit=0 .* restarts=1$'"
check "requeue: collect COMPLETED 0:0" test "$(job_field "$QC" JobState) $(job_field "$QC" ExitCode)" = "COMPLETED 0:0"
"$RUNNER" status "$Q" >"$WORK/status.q2" 2>&1
check "requeue: status says done, requeued 1x, attempt 2" grep -qE "^0 +done +${QA}_0 .*requeued 1x, attempt 2" "$WORK/status.q2"

# ------------------------------------------------------------- node failure --
N=$WORK/nodefail
t0=$(t_now)
# --no-requeue: Slurm would otherwise requeue the element (as above) and NODE_FAIL never shows.
out=$("$RUNNER" submit "$REQ" --out "$N" --time 5 -- --no-requeue 2>&1)
NA=$(array_ids "$out")
NC=$(collect_id "$out")
[[ -n $NA && -n $NC ]] || not_ok "node-failure run submitted" "$out"
if wait_until 60 records_at_least "$N/shards/0.jsonl" 2; then
    cp "$N/shards/0.jsonl" "$WORK/n.before"
    scontrol update nodename="$NODE" state=down reason=test_integrity
    ok "node $NODE set DOWN under shard 0 after $(wc -l <"$WORK/n.before") records"
else
    not_ok "shard 0 recorded 2 points within 60 s"
fi
wait_until 30 job_ended "${NA}_0"
# The node comes back by itself (ReturnToService=2, slurmd registers again); else resume it.
scontrol update nodename="$NODE" state=resume >/dev/null 2>&1
node_up() { [[ $(sinfo -h -n "$NODE" -o '%T') =~ ^(idle|mixed|allocated)$ ]]; }
wait_until 30 node_up || not_ok "node $NODE back up" "$(sinfo 2>&1)"
check "node failure: the element ended NODE_FAIL ($(job_field "${NA}_0" JobState))" test "$(job_field "${NA}_0" JobState)" = NODE_FAIL
# Slurm 22.05 races here: either srun returns 0 for the step it lost and the script writes exit=0,
# or slurmd signals the script first and the runner drains (exit=-1 drained=1). Both are a node
# failure; what must hold is that the script's last word is an exit line of this attempt.
check "node failure: the batch script wrote its exit line (exit=0 from srun's lost step, or drained)" \
    bash -c "tail -n 1 '$N/logs/${NA}_0.exit' | grep -qE '^exit=(0 .*|-?[0-9]+ .* drained=1) restarts=0$'"
wait_collect "node failure" "$NC" 60
T_NODEFAIL=$(t_since "$t0")
"$RUNNER" status "$N" >"$WORK/status.n" 2>&1
check "node failure: status says killed by a node failure, not 'runner exit 0'" \
    bash -c "grep -qE '^0 +killed +${NA}_0 +NODE_FAIL .*node failure of $NODE' '$WORK/status.n' && ! grep -q 'runner exit 0' '$WORK/status.n'"
check "node failure: collect job FAILED 4:0 (points missing)" \
    test "$(job_field "$NC" JobState) $(job_field "$NC" ExitCode)" = "FAILED 4:0"
check "node failure: collect says why, and not 'ended with exit 0'" \
    bash -c "grep -qE '^shard 0 \(job ${NA}_0\): [0-9]* of 12 points missing: (srun returned 0 with points missing|drained after SIGTERM)' '$N/logs/collect_$NC.out' && ! grep -q 'ended with exit 0' '$N/logs/collect_$NC.out'"
check "node failure: the records written before the failure are all there" lines_kept "$WORK/n.before" "$N/shards/0.jsonl"
# What this run of Slurm's race did, for a failure of the two checks above (a third outcome was
# seen once in CI, with nothing to tell which): the script's last exit line, collect's shard line.
diag "node failure: exit file ends: $(tail -n 1 "$N/logs/${NA}_0.exit" 2>&1)"
diag "node failure: collect says: $(grep -m1 "^shard 0" "$N/logs/collect_$NC.out" 2>&1)"

# Printed commands are shell-quoted: a copy of the run in a folder whose name needs quotes.
O="$WORK/odd~dir"
cp -r "$N" "$O"
rc=$(run_rc "$WORK/odd.out" "$RUNNER" collect "$O")
expect "collect of a folder named odd~dir prints a quoted resume command" "$rc" 4 "$WORK/odd.out" \
    "resubmit what is missing or failed with: runner submit --resume '$O'$"
rc=$(run_rc "$WORK/odd.status" "$RUNNER" status "$O")
expect "... and so does status" "$rc" 0 "$WORK/odd.status" "runner submit --resume '$O'$"

t0=$(t_now)
out=$("$RUNNER" submit --resume "$N" 2>&1)
NRC=$(collect_id "$out")
check "node failure: submit --resume resubmits shard 0" grep -q '^resubmitting 1 of 1 shards (0)' <<<"$out"
wait_collect "node failure resume" "$NRC" 120
T_NODEFAIL_RESUME=$(t_since "$t0")
check "node failure resume: collect COMPLETED 0:0" test "$(job_field "$NRC" JobState) $(job_field "$NRC" ExitCode)" = "COMPLETED 0:0"
nodefail_resumed_ok() { lines_kept "$WORK/n.before" "$N/shards/0.jsonl" && exactly_planned "$N" 0 "$N/shards/0.jsonl"; }
check "node failure resume: the earlier records kept verbatim, 12 planned points once" nodefail_resumed_ok

# ------------------------------------------------------------------ figures --
echo "# figures (one-node cluster, $(nproc) cores):"
echo "#   max_array_tasks=2, smoke_cpu.yaml as 5 shards in 3 arrays: submit -> collect ${T_MAXTASKS} s"
echo "#   submit --resume --force-mix of one shard: ${T_FORCEMIX} s"
echo "#   requeue (scontrol requeue after 3 records; cred_expire=10, sched_interval=2): submit -> collect ${T_REQUEUE} s"
echo "#   node failure: submit -> collect ${T_NODEFAIL} s; its resume ${T_NODEFAIL_RESUME} s"
echo "#   whole test $(t_since "$T_START") s"
finish
