#!/usr/bin/env bash
# tests/slurm/test_edges.sh -- slurm.setup, --mem / --exclude and `runner cancel` with the real
# runner on a real one-node Slurm cluster (tests/slurm/cluster.sh) that also defines two ghost
# nodes, ghost01 and ghost02 (State=FUTURE: names sbatch --exclude accepts; excluding the one real
# node leaves a job nowhere to run, and unknown names are refused), with max_array_tasks=2 (a run
# of 3 shards is two arrays and a collect job):
#   * setup: the lines of `slurm: {setup: [...]}` are in both rendered scripts, verbatim and in
#     order, and they run: in order in every job (a file per job they append to), before the
#     runner (OMP_PROC_BIND they export reaches the shard's manifest), in the collect job too; a
#     failing line is reported in the job's .err and the run still completes;
#   * --mem / --exclude: `#SBATCH --mem` / `--exclude` lines, and Slurm's own view of the jobs
#     (scontrol: MinMemoryNode, ExcNodeList) for the YAML's values and the command line's; the
#     collect job excludes the same nodes but asks for no memory; bad values: exit 2, nothing
#     made, nothing submitted;
#   * cancel: a run with a running shard (three-second points), a pending element, a pending
#     second array and a pending collect job: exit 0, every job named, squeue empty, status says
#     `cancelled` for every shard (none failed, killed or missing), the running shard drained and
#     kept its records, manifest state `cancelled`, collect exits 4 and says why; a resumed
#     submission of it cancelled the same way (a run spanning two submissions); cancel again:
#     exit 0, nothing to cancel; cancel of a finished run: exit 0, nothing to cancel, not marked;
#     of a folder no submit made: exit 2;
#   * a user's job with --signal=USR1@50 (not a submitted run): the runner drains on SIGUSR1 (exit
#     138, manifest interrupted) and a second job resumes it to the plan;
#   * the per-user process limit: a job of nobody under `ulimit -u` (propagated by Slurm) runs its
#     points or skips them naming the limit, none timed out.
# Root only (cluster.sh). About 4 minutes on 2 cores.
#
#   RUNNER_BIN=build/bin/runner tests/slurm/test_edges.sh     # KEEP=1 keeps the work directory

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

WORK=$(mktemp -d "${TMPDIR:-/tmp}/slurmedges.XXXXXX")
chmod 755 "$WORK"
# Shards measure the machine's ceilings before their first point when none are stored: measure
# them once, in the background while the cluster starts.
export RUNNER_CALIBRATION_DIR=$WORK/calibration
"$RUNNER" calibrate --cpu-only --out "$RUNNER_CALIBRATION_DIR" >"$WORK/calibrate.log" 2>&1 &
CALIBRATE=$!
# CTest's SIGKILL at its TIMEOUT would leave the daemons running: stop ourselves first.
start_watchdog "${TEST_DEADLINE_S:-700}"
cleanup() {
    local rc=$?
    kill "$WATCHDOG" 2>/dev/null || true
    kill "$CALIBRATE" 2>/dev/null || true
    stop_cluster_and_exit "$rc"
}
trap cleanup EXIT
trap 'echo "# test_edges.sh: interrupted (or past its ${DEADLINE_S} s deadline)" >&2; exit 130' INT TERM

# ------------------------------------------------------------------ helpers --



no_jobs() { [[ -z $(squeue -h 2>/dev/null) ]]; }
records_at_least() { [[ -s $1 && $(wc -l <"$1") -ge $2 ]]; }
running_shard() { [[ $(squeue -h -t RUNNING -o %i 2>/dev/null | wc -l) -ge 1 ]]; }

# The lines of `runner status` for shards: "shard state ..." rows of the table.
shard_rows() { awk '$1 ~ /^[0-9]+$/ && NF >= 9' "$1"; }

# ------------------------------------------------------------------ cluster --
if env_line=$(CLUSTER_MAX_ARRAY_TASKS=2 CLUSTER_GHOST_NODES='ghost[01-02]' "$CLUSTER" start "$WORK"); then
    ok "cluster starts (max_array_tasks=2, ghost nodes ghost01, ghost02)"
else
    not_ok "cluster starts"
    finish || true
    exit 1
fi
eval "$env_line"
cd "$WORK"
set +e
wait "$CALIBRATE" || diag "calibration failed: $(tail -3 "$WORK/calibrate.log")"

# ----------------------------------------------------- setup, mem, exclude --
# A quick matrix whose config sets every new key; the setup lines write a file per job (named by
# the job id), in order, with quotes, a '%j' that must stay as written (only #SBATCH lines get
# Slurm's % patterns), a failing command, and an export the runner must see.
E=$WORK/edges.yaml
cat >"$E" <<EOF
experiment: slurm-edges
description: slurm.setup, mem and exclude on the test cluster
kernel: gemm
dtype: float
repeat: {warmup: 0, min_samples: 3, max_samples: 5, target_rsd: 0.5, max_seconds: 0.1}
slurm:
  mem: 200M
  exclude: ghost01
  setup:
    - echo one >> $WORK/setup.\$SLURM_JOB_ID.log
    - 'echo "two: ''quoted'' %j" >> $WORK/setup.\$SLURM_JOB_ID.log'
    - "false"
    - export OMP_PROC_BIND=spread
sweeps:
  - {variant: omp_serial, size: [16, 24, 32]}
EOF

A=$WORK/edges
rc=$(run_rc "$WORK/a.out" "$RUNNER" submit "$E" --tasks 2 --out "$A")
expect "submit with slurm.setup, mem 200M and exclude ghost01 from the YAML" "$rc" 0 "$WORK/a.out" \
    "mem 200M.*excluding ghost01, 4 setup lines"
A_ARRAY=$(array_ids "$(cat "$WORK/a.out")" | head -n 1)
A_COLLECT=$(collect_id "$(cat "$WORK/a.out")")

setup_block=$(printf '%s\n' "echo one >> $WORK/setup.\$SLURM_JOB_ID.log" \
    "echo \"two: 'quoted' %j\" >> $WORK/setup.\$SLURM_JOB_ID.log" "false" \
    "export OMP_PROC_BIND=spread")
for script in shard collect; do
    if grep -qF -- "$setup_block" "$A/slurm/$script.sbatch" &&
        (($(grep -nF -- "echo one" "$A/slurm/$script.sbatch" | cut -d: -f1) <
          $(grep -nE -- '^(srun |[^#].* collect )' "$A/slurm/$script.sbatch" | head -n 1 | cut -d: -f1))); then
        ok "$script.sbatch holds the setup lines verbatim, in order, before the runner"
    else
        not_ok "$script.sbatch holds the setup lines verbatim, in order, before the runner" \
            "$(sed -n '/set +u/,/set -u/p' "$A/slurm/$script.sbatch")"
    fi
done
check "shard.sbatch: #SBATCH --mem=200M and --exclude=ghost01" \
    bash -c "grep -qx -- '#SBATCH --mem=200M' '$A/slurm/shard.sbatch' && grep -qx -- '#SBATCH --exclude=ghost01' '$A/slurm/shard.sbatch'"
check "collect.sbatch: --exclude=ghost01, no --mem" \
    bash -c "grep -qx -- '#SBATCH --exclude=ghost01' '$A/slurm/collect.sbatch' && ! grep -q -- '^#SBATCH --mem' '$A/slurm/collect.sbatch'"
if [[ $(job_field "${A_ARRAY}_0" MinMemoryNode) == 200M && $(job_field "${A_ARRAY}_0" ExcNodeList) == ghost01 &&
    $(job_field "$A_COLLECT" ExcNodeList) == ghost01 && $(job_field "$A_COLLECT" MinMemoryNode) != 200M ]]; then
    ok "Slurm sees the array with MinMemoryNode=200M ExcNodeList=ghost01, the collect job excluding ghost01"
else
    not_ok "Slurm sees mem and exclude" "$(scontrol -o show job "$A_ARRAY" | tr ' ' '\n' | grep -E 'MinMemory|ExcNode|JobId')" \
        "$(scontrol -o show job "$A_COLLECT" | tr ' ' '\n' | grep -E 'MinMemory|ExcNode|JobId')"
fi
wait_collect "setup run" "$A_COLLECT" 120
check "setup run: collect exit 0:0 (every point, no failure)" test "$(job_field "$A_COLLECT" ExitCode)" = "0:0"

# Every job (two shards and the collect job) ran the setup lines, in order, as written.
setup_logs_ok() {
    local f n=0
    for f in "$WORK"/setup.*.log; do
        [[ $(cat "$f") == "one"$'\n'"two: 'quoted' %j" ]] || return 1
        n=$((n + 1))
    done
    [[ $n == 3 ]]
}
if setup_logs_ok; then
    ok "the setup lines ran in every job (2 shards, collect), in order, verbatim"
else
    not_ok "the setup lines ran in every job, in order, verbatim" "$(head -v "$WORK"/setup.*.log 2>&1)"
fi
bind0=$(json "$A/shards/0.manifest.json" 'd["environment"]["omp_proc_bind"]' 2>&1)
bind1=$(json "$A/shards/1.manifest.json" 'd["environment"]["omp_proc_bind"]' 2>&1)
check "an export of a setup line reaches the runner (shard manifests: omp_proc_bind $bind0, $bind1)" \
    test "$bind0/$bind1" = "spread/spread"
if grep -q "setup: a command failed (exit 1;" "$A/logs/${A_ARRAY}_0.err" &&
    grep -q "\[collect.sbatch\] setup: a command failed (exit 1;" "$A"/logs/collect_*.err; then
    ok "a failing setup line is reported in the shard's and the collect job's .err"
else
    not_ok "a failing setup line is reported" "$(cat "$A/logs/${A_ARRAY}_0.err" "$A"/logs/collect_*.err 2>&1 | head -20)"
fi

# The command line wins over the YAML; `none` drops a line.
B=$WORK/edges-cli
rc=$(run_rc "$WORK/b.out" "$RUNNER" submit "$E" --tasks 1 --out "$B" --mem 300M --exclude 'ghost[01-02]')
expect "submit --mem 300M --exclude 'ghost[01-02]' over the YAML's" "$rc" 0 "$WORK/b.out" "mem 300M.*excluding ghost\[01-02\]"
B_ARRAY=$(array_ids "$(cat "$WORK/b.out")" | head -n 1)
B_COLLECT=$(collect_id "$(cat "$WORK/b.out")")
if [[ $(job_field "${B_ARRAY}_0" MinMemoryNode) == 300M && $(job_field "${B_ARRAY}_0" ExcNodeList) == "ghost[01-02]" &&
    $(job_field "$B_COLLECT" ExcNodeList) == "ghost[01-02]" ]]; then
    ok "Slurm sees the command line's MinMemoryNode=300M ExcNodeList=ghost[01-02]"
else
    not_ok "Slurm sees the command line's mem and exclude" "$(scontrol -o show job "$B_ARRAY" | tr ' ' '\n' | grep -E 'MinMemory|ExcNode|JobId')"
fi
C=$WORK/edges-none
rc=$(run_rc "$WORK/c.out" "$RUNNER" submit "$E" --tasks 1 --out "$C" --mem none --exclude none --dry-run)
if [[ $rc == 0 ]] && ! grep -qE -- '^#SBATCH --(mem|exclude)' "$C/slurm/shard.sbatch"; then
    ok "--mem none --exclude none: no such lines"
else
    not_ok "--mem none --exclude none: no such lines" "exit $rc" "$(grep -E -- '^#SBATCH --(mem|exclude)' "$C/slurm/shard.sbatch")"
fi
wait_collect "command-line run" "$B_COLLECT" 120

# Bad values: usage errors, nothing made, nothing submitted.
before=$(squeue -h | wc -l)
for bad in "--mem 1.5G:--mem '1.5G' is not a memory size" "--mem 16GiB:is not a memory size" \
    "--exclude node[03-01]:--exclude 'node\[03-01\]' is not a Slurm hostlist" \
    "--exclude ghost01,,ghost02:is not a Slurm hostlist \(an empty name\)"; do
    opt=${bad%%:*}
    rc=$(run_rc "$WORK/bad.out" "$RUNNER" submit "$E" --out "$WORK/bad-run" ${opt})
    expect "submit $opt refused" "$rc" 2 "$WORK/bad.out" "${bad#*:}"
    check "submit $opt: no folder made, nothing submitted" \
        test ! -e "$WORK/bad-run" -a "$(squeue -h | wc -l)" = "$before"
done

# ------------------------------------------------------------------ cancel --
# Three-second points, so that shard 0 is still running when it is cancelled; --throttle 1, so
# that shard 1 waits in its array (JobArrayTaskLimit) and shard 2, in a second array under
# max_array_tasks=2, waits for the first (Dependency), as does the collect job.
D=$WORK/cancel
rc=$(run_rc "$WORK/d.out" "$RUNNER" submit "$HERE/drain_cpu.yaml" --tasks 3 --throttle 1 --out "$D")
expect "submit 3 shards of three-second points, --throttle 1" "$rc" 0 "$WORK/d.out" "collect job [0-9]+"
mapfile -t D_ARRAYS < <(array_ids "$(cat "$WORK/d.out")")
D_COLLECT=$(collect_id "$(cat "$WORK/d.out")")
check "two arrays (max_array_tasks=2): ${D_ARRAYS[*]}" test "${#D_ARRAYS[@]}" = 2
if wait_until 90 records_at_least "$D/shards/0.jsonl" 1; then
    ok "shard 0 is running and has records"
else
    not_ok "shard 0 is running and has records" "$(squeue 2>&1)" "$(tail -5 "$D"/logs/*.err 2>&1)"
fi
squeue -h -o '%i %T %r' >"$WORK/queue-before-cancel.txt"
diag "queue before cancel: $(tr '\n' ';' <"$WORK/queue-before-cancel.txt")"
rc=$(run_rc "$WORK/cancel1.out" "$RUNNER" cancel "$D")
expect "cancel: exit 0, names the collect job" "$rc" 0 "$WORK/cancel1.out" "^cancelled collect job $D_COLLECT "
expect "cancel: names the first array (shards 0-1, running and pending)" "$rc" 0 "$WORK/cancel1.out" \
    "^cancelled array job ${D_ARRAYS[0]} \(submission 1; shards 0-1: .*RUNNING"
expect "cancel: names the second array (shard 2)" "$rc" 0 "$WORK/cancel1.out" \
    "^cancelled array job ${D_ARRAYS[1]} \(submission 1; shards 2: 1 PENDING\)"
expect "cancel: says the running shard drains" "$rc" 0 "$WORK/cancel1.out" "^running shards got SIGTERM: they drain"
if wait_until 30 no_jobs; then
    ok "squeue no longer shows any job of the run"
else
    not_ok "squeue no longer shows any job of the run" "$(squeue 2>&1)"
fi
check "manifest: state cancelled, shards 0-2 cancelled in submission 1" \
    test "$(json "$D/manifest.json" 'd["state"], d["slurm"]["submissions"][0]["cancelled_shards"]')" = "('cancelled', [0, 1, 2])"
rc=$(run_rc "$WORK/status1.out" "$RUNNER" status "$D")
expect "status: the submission says it was cancelled" "$rc" 0 "$WORK/status1.out" \
    "^submission 1 .*; cancelled by runner cancel at "
if [[ $(shard_rows "$WORK/status1.out" | awk '$2 == "cancelled"' | wc -l) == 3 ]] &&
    ! shard_rows "$WORK/status1.out" | grep -qE ' (failed|killed|missing|interrupted) '; then
    ok "status: every shard cancelled, none failed, killed or missing"
else
    not_ok "status: every shard cancelled" "$(cat "$WORK/status1.out")"
fi
kept=$(wc -l <"$D/shards/0.jsonl")
check "status: the running shard drained and kept its $kept record(s)" \
    grep -qE "^0 +cancelled .*drained, $kept records? kept" "$WORK/status1.out"
rc=$(run_rc "$WORK/collect1.out" "$RUNNER" collect "$D")
expect "collect: exit 4, the shards' points missing because of the cancel" "$rc" 4 "$WORK/collect1.out" \
    "^shard 1 \(job ${D_ARRAYS[0]}_1\): [0-9]+ of [0-9]+ points missing: cancelled: runner cancel at .*before its first record"
rc=$(run_rc "$WORK/cancel2.out" "$RUNNER" cancel "$D")
expect "cancel again: exit 0, nothing to cancel" "$rc" 0 "$WORK/cancel2.out" \
    "^nothing to cancel: every job of $D has ended \(cancelled by runner cancel at "

# A resumed run spans two submissions: cancel finds the second one's jobs too.
rc=$(run_rc "$WORK/resume.out" "$RUNNER" submit --resume "$D")
expect "submit --resume of the cancelled run" "$rc" 0 "$WORK/resume.out" "collect job [0-9]+"
mapfile -t R_ARRAYS < <(array_ids "$(cat "$WORK/resume.out")")
R_COLLECT=$(collect_id "$(cat "$WORK/resume.out")")
rc=$(run_rc "$WORK/cancel3.out" "$RUNNER" cancel "$D")
expect "cancel of the resumed run: its collect job" "$rc" 0 "$WORK/cancel3.out" \
    "^cancelled collect job $R_COLLECT \(submission 2;"
expect "cancel of the resumed run: its arrays" "$rc" 0 "$WORK/cancel3.out" \
    "^cancelled array job ${R_ARRAYS[0]} \(submission 2;"
expect "cancel of the resumed run: the first submission's jobs already ended" "$rc" 0 "$WORK/cancel3.out" \
    "^already ended: collect job $D_COLLECT \(submission 1\): CANCELLED"
if wait_until 30 no_jobs; then
    ok "squeue empty after the second cancel"
else
    not_ok "squeue empty after the second cancel" "$(squeue 2>&1)"
fi
rc=$(run_rc "$WORK/status2.out" "$RUNNER" status "$D")
if [[ $rc == 0 && $(shard_rows "$WORK/status2.out" | awk '$2 == "cancelled"' | wc -l) == 3 ]] &&
    grep -qE "^submission 2 .*; cancelled by runner cancel at " "$WORK/status2.out" &&
    lines_ok=$(wc -l <"$D/shards/0.jsonl") && ((lines_ok >= kept)); then
    ok "status after the resumed run's cancel: every shard cancelled, records kept"
else
    not_ok "status after the resumed run's cancel" "$(cat "$WORK/status2.out")"
fi

# A run that finished is not cancelled; a folder no submit made is a usage error.
rc=$(run_rc "$WORK/cancel-done.out" "$RUNNER" cancel "$A")
expect "cancel of a finished run: exit 0, nothing to cancel" "$rc" 0 "$WORK/cancel-done.out" \
    "^nothing to cancel: every job of $A has ended$"
check "cancel of a finished run leaves its manifest's state alone" \
    test "$(json "$A/manifest.json" 'd["state"]')" != cancelled
mkdir -p "$WORK/not-a-run"
rc=$(run_rc "$WORK/cancel-none.out" "$RUNNER" cancel "$WORK/not-a-run")
expect "cancel of a folder no submit made: exit 2" "$rc" 2 "$WORK/cancel-none.out" "no manifest.json"
rc=$(run_rc "$WORK/cancel-dry.out" "$RUNNER" cancel "$C")
expect "cancel of a --dry-run folder: exit 2" "$rc" 2 "$WORK/cancel-dry.out" "nothing to cancel"

# ------------------------------------------- a user's job with --signal=USR1@N --
# Users' own batch scripts ask Slurm for a signal before the time limit to drain
# (#SBATCH --signal=USR1@50): srun passes it to the runner, which stops after the point in flight,
# exits 138 (128 + SIGUSR1) with the manifest `interrupted` and the resume command; a second job
# resumes to the plan. SIGUSR1's default action ended the runner like kill -9 (manifest `running`).
# 30 points of 2.5 s: 75 s of work in a job of 1 minute, signalled 10 to 40 s in.
U=$WORK/usr1
U_CONFIG=$WORK/usr1.yaml
{
    echo "experiment: slurm-usr1"
    echo "kernel: gemm"
    echo "repeat: {warmup: 0, min_samples: 3, max_samples: 1000000, target_rsd: 0, max_seconds: 2.5}"
    echo "sweeps:"
    echo "  - {variant: omp_serial, size: {range: [32, 61]}}"
} >"$U_CONFIG"
U_JOB=$(sbatch --parsable --time=1 --signal=USR1@50 --output="$WORK/usr1.%j.out" --wrap \
    "srun --ntasks=1 '$RUNNER' '$U_CONFIG' --out '$U' --no-calibrate -q; echo \"runner exit \$?\"")
if wait_until 150 job_ended "$U_JOB"; then
    ok "a job with --signal=USR1@50 ends before its time limit"
else
    not_ok "a job with --signal=USR1@50 ends before its time limit" "$(squeue 2>&1)"
fi
u_kept=$(wc -l <"$U/records.jsonl" 2>/dev/null || echo 0)
if grep -qx "runner exit 138" "$WORK/usr1.$U_JOB.out" &&
    grep -q "Interrupted by SIGUSR1 after" "$WORK/usr1.$U_JOB.out" &&
    grep -q "Resume with: runner " "$WORK/usr1.$U_JOB.out" &&
    [[ $(json "$U/manifest.json" 'd["state"]') == interrupted ]] && ((u_kept > 0 && u_kept < 30)); then
    ok "SIGUSR1 from Slurm drains the runner: exit 138, manifest interrupted, $u_kept record(s) kept"
else
    not_ok "SIGUSR1 from Slurm drains the runner" "$(cat "$WORK/usr1.$U_JOB.out")" \
        "state: $(json "$U/manifest.json" 'd["state"]' 2>&1), records: $u_kept"
fi
U_JOB2=$(sbatch --parsable --time=2 --output="$WORK/usr1.%j.out" --wrap \
    "srun --ntasks=1 '$RUNNER' '$U_CONFIG' --out '$U' --no-calibrate -q --resume; echo \"runner exit \$?\"")
wait_until 170 job_ended "$U_JOB2" || true
if grep -qx "runner exit 0" "$WORK/usr1.$U_JOB2.out" && [[ $(wc -l <"$U/records.jsonl") == 30 ]] &&
    [[ $(json "$U/manifest.json" 'd["state"]') == complete ]]; then
    ok "a second job resumes the drained run to the plan (30 records)"
else
    not_ok "a second job resumes the drained run" "$(cat "$WORK/usr1.$U_JOB2.out")"
fi

# ------------------------------------------ the per-user process limit in a job --
# A job submitted under `ulimit -u`, which Slurm propagates to the job (PropagateResourceLimits=ALL
# by default), running the runner as an unprivileged user (nobody: root is exempt from
# RLIMIT_NPROC). The limit leaves room for the runner,
# its worker and the worker's watchdog thread. OpenBLAS used to spin and every point, omp_serial
# too, ran into its time limit; now they run, and a point of 2 threads is skipped naming the limit.
N=$WORK/nproc
mkdir -p "$N" && chmod 777 "$N"
{
    echo "experiment: slurm-nproc"
    echo "kernel: gemm"
    echo "timeout_s: 20"
    echo "repeat: {warmup: 0, min_samples: 1, max_samples: 1}"
    echo "sweeps:"
    echo "  - {variant: omp_serial, size: [16, 32]}"
    echo "  - {variant: [omp_naive, openblas], threads: [1, 2], size: 16}"
} >"$N/config.yaml"
chmod 644 "$N/config.yaml"
# The tests that run as nobody take turns (tests/hostile/hostile.hpp, UserNobodyLock): the limit
# counts every process of nobody, and another test's would change it while the job runs.
exec 8>>/tmp/runner-tests-user-nobody.lock
flock 8
nobody_tasks=$(ps -u nobody -L --no-headers 2>/dev/null | wc -l)
# The job runs as root (the test cluster's spool is root's) and starts the runner as nobody;
# setpriv keeps the limit Slurm propagated.
N_JOB=$(bash -c "ulimit -S -u $((nobody_tasks + 3)) && sbatch --parsable --time=2 --chdir='$N' \
    --output='$N/job.out' --wrap \"exec setpriv --reuid=nobody --regid=nogroup --clear-groups \
    '$RUNNER' '$N/config.yaml' --out '$N/out' --no-calibrate -q\"")
wait_until 120 job_ended "$N_JOB" || true
flock -u 8
n_records=$(wc -l <"$N/out/records.jsonl" 2>/dev/null || echo 0)
# The limit named is the one submitted: Slurm propagated it.
n_skipped=$(grep -c "\"status\":\"skipped\",\"message\":\"thread limit: a point of 2 threads needs 1 more thread, but the per-user process limit (ulimit -u $((nobody_tasks + 3));" "$N/out/records.jsonl" 2>/dev/null)
n_ok=$(grep -c '"status":"ok"' "$N/out/records.jsonl" 2>/dev/null)
if [[ $(job_field "$N_JOB" ExitCode) == 0:0 && $n_records == 6 && $n_skipped == 2 && $n_ok == 4 ]] &&
    ! grep -q "timed out" "$N/out/records.jsonl"; then
    ok "ulimit -u in a job of nobody: 4 points ok, the 2-thread points skipped naming the limit, none timed out"
else
    not_ok "ulimit -u in a job of nobody" "job $(job_field "$N_JOB" ExitCode): $(cat "$N/job.out" 2>&1)" \
        "$(cut -c1-300 "$N/out/records.jsonl" 2>&1)"
fi


finish
