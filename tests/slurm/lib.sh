# tests/slurm/lib.sh -- small TAP helpers shared by the tests/slurm/test_*.sh
# scripts.  Source it; it defines ok/not_ok/check/wait_until/finish.
# shellcheck shell=bash

T_PASS=0
T_FAIL=0
T_N=0
T_FAILED_NAMES=()

ok() {
    T_N=$((T_N + 1))
    T_PASS=$((T_PASS + 1))
    printf 'ok %d - %s\n' "$T_N" "$1"
}

not_ok() {
    T_N=$((T_N + 1))
    T_FAIL=$((T_FAIL + 1))
    T_FAILED_NAMES+=("$1")
    printf 'not ok %d - %s\n' "$T_N" "$1"
    shift
    local line
    for line in "$@"; do printf '#   %s\n' "$line"; done
}

# check NAME COMMAND... : ok if COMMAND succeeds.
check() {
    local name=$1
    shift
    if "$@"; then ok "$name"; else not_ok "$name" "command failed: $*"; fi
}

diag() { printf '# %s\n' "$*"; }

t_now() { date +%s.%N; }
t_since() { awk -v a="$1" -v b="$(t_now)" 'BEGIN { printf "%.2f", b - a }'; }

# wait_until SECONDS COMMAND... : poll COMMAND every 0.25 s; 1 on timeout.
wait_until() {
    local secs=$1
    shift
    local deadline
    deadline=$(awk -v a="$(t_now)" -v s="$secs" 'BEGIN { printf "%d", a + s }')
    while ! "$@" >/dev/null 2>&1; do
        (($(date +%s) < deadline)) || return 1
        sleep 0.25
    done
}

# True if PID exists and is not a zombie.
pid_alive() {
    [[ $1 =~ ^[0-9]+$ && -e /proc/$1 ]] || return 1
    [[ $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) != [ZX] ]]
}

# job_field JOBID FIELD : value of FIELD=... in `scontrol -o show job JOBID`
# (first record).
job_field() {
    scontrol -o show job "$1" 2>/dev/null | head -n 1 | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# Job ids from `runner submit` output: "array job N: ..." lines and "collect job N: ...".
array_ids() { sed -n 's/^array job \([0-9][0-9]*\):.*/\1/p' <<<"$1"; }
collect_id() { sed -n 's/^collect job \([0-9][0-9]*\):.*/\1/p' <<<"$1"; }

# True once JOBID is in a final state (a requeued job is not: it runs again).
job_ended() {
    local s
    s=$(job_field "$1" JobState)
    # The states the runner counts as active (runner/slurm/slurm_client.cpp, is_active): SIGNALING
    # too, which a job shows while Slurm delivers its --signal (it read as ended once).
    [[ -n $s && ! $s =~ ^(PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED|REQUEUED|RESIZING|SIGNALING|STAGE_OUT|REQUEUE_HOLD|REQUEUE_FED|SPECIAL_EXIT|STOPPED)$ ]]
}

# wait_collect NAME JOBID SECS: ok/not_ok on the job ending in time.
wait_collect() {
    local name=$1 id=$2 secs=$3
    if [[ -n $id ]] && wait_until "$secs" job_ended "$id"; then
        ok "$name: collect job $id ended ($(job_field "$id" JobState) $(job_field "$id" ExitCode))"
    else
        not_ok "$name: collect job ${id:-?} ended within $secs s" "$(squeue 2>&1)"
    fi
}

finish() {
    printf '1..%d\n' "$T_N"
    printf '%d passed, %d failed\n' "$T_PASS" "$T_FAIL"
    if ((T_FAIL > 0)); then
        printf 'failed: %s\n' "${T_FAILED_NAMES[@]}"
        return 1
    fi
    return 0
}

# The cluster tests need root (cluster.sh runs munged, slurmctld and slurmd as root): elsewhere
# they exit 77, which CTest reports as skipped (SKIP_RETURN_CODE in tests/slurm/CMakeLists.txt).
# RUNNER: the runner binary the tests drive (RUNNER_BIN, default build/bin/runner of the tree),
# as an absolute path; bails out when there is none.
find_runner() {
    RUNNER=${RUNNER_BIN:-$ROOT/build/bin/runner}
    if [[ ! -x $RUNNER ]]; then
        echo "Bail out! no runner executable at $RUNNER (set RUNNER_BIN)"
        exit 1
    fi
    RUNNER=$(cd "$(dirname "$RUNNER")" && pwd)/$(basename "$RUNNER")
}

skip_unless_root() {
    if [[ $(id -u) -ne 0 ]]; then
        echo "1..0 # SKIP needs root (tests/slurm/cluster.sh runs the Slurm daemons as root)"
        exit 77
    fi
}

# run_rc OUTFILE COMMAND...: runs COMMAND with stdout+stderr into OUTFILE, prints its exit code.
run_rc() {
    local file=$1 rc=0
    shift
    "$@" >"$file" 2>&1 || rc=$?
    echo "$rc"
}

# expect NAME RC WANT FILE PATTERN: ok if RC = WANT and FILE holds PATTERN (grep -E).
expect() {
    local name=$1 rc=$2 want=$3 file=$4 pattern=$5
    if [[ $rc == "$want" ]] && grep -qE -- "$pattern" "$file"; then
        ok "$name (exit $rc)"
    else
        not_ok "$name" "exit $rc, wanted $want; message wanted: $pattern" "$(head -c 1500 "$file")"
    fi
}

# json FILE EXPR: EXPR evaluated in Python with d = the JSON document of FILE ($PY: a python3).
json() { "$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# start_watchdog SECONDS: CTest kills a test that runs past its TIMEOUT with SIGKILL, which no trap
# sees and which would leave the daemons running; this sends the script SIGTERM first (its INT/TERM
# trap exits 130, then its EXIT trap stops the cluster). The watchdog holds no output pipe (CTest
# would wait for it) and takes its sleep along when killed. Sets DEADLINE_S and WATCHDOG (its pid).
watchdog() {
    sleep "$DEADLINE_S" &
    local sleeper=$!
    trap 'kill $sleeper; exit 0' TERM
    wait "$sleeper" && kill -TERM $$
}
start_watchdog() {
    DEADLINE_S=$1
    watchdog >/dev/null 2>&1 </dev/null &
    WATCHDOG=$!
}

# keep_work_or_remove_and_exit RC: keeps $WORK when the test failed or KEEP=1 (its daemon logs
# are in $WORK/log), else removes it, and exits RC.
keep_work_or_remove_and_exit() {
    local rc=$1
    if ((rc != 0 || T_FAIL > 0)) || [[ ${KEEP:-0} == 1 ]]; then
        echo "# kept $WORK (daemon logs in $WORK/log)" >&2
    else
        rm -rf "$WORK"
    fi
    exit "$rc"
}

# stop_cluster_and_exit RC: the end of a test's EXIT trap: stops the cluster of $WORK ($CLUSTER:
# cluster.sh), then keeps or removes $WORK and exits RC.
stop_cluster_and_exit() {
    "$CLUSTER" stop "$WORK" >&2 || echo "# cluster.sh stop failed" >&2
    keep_work_or_remove_and_exit "$1"
}
