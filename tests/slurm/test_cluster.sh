#!/usr/bin/env bash
# tests/slurm/test_cluster.sh -- smoke test of the one-node Slurm harness
# (tests/slurm/cluster.sh) on its own: start, array job, job states, jobcomp
# records, cancelling an array element, stop, nothing left running.
#
# Needs root; installs slurm + munge with apt-get when missing (CI).
# Prints TAP lines, the start/array/stop timings and "N passed, N failed";
# exits non-zero on any failure.  The work directory is removed on success
# and kept (path printed) on failure so the daemon logs can be read.
#
#   tests/slurm/test_cluster.sh          # KEEP=1 keeps the directory anyway

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CLUSTER=$HERE/cluster.sh
# shellcheck source=tests/slurm/lib.sh
source "$HERE/lib.sh"
skip_unless_root

WORK=$(mktemp -d "${TMPDIR:-/tmp}/slurmtest.XXXXXX")
chmod 755 "$WORK"
PIDS=()
STOPPED=0

cleanup() {
    local rc=$?
    if ((STOPPED == 0)); then
        "$CLUSTER" stop "$WORK" >&2 || echo "# cluster.sh stop failed in EXIT trap" >&2
    fi
    if [[ -e $WORK/crash/slurm.conf ]]; then
        "$CLUSTER" stop "$WORK/crash" >&2 || echo "# cluster.sh stop (crash test) failed in EXIT trap" >&2
    fi
    keep_work_or_remove_and_exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

diag "work directory $WORK"

# ------------------------------------------------------------------ start --
t0=$(t_now)
if env_line=$("$CLUSTER" start "$WORK"); then
    T_START=$(t_since "$t0")
    ok "cluster starts (${T_START} s)"
else
    T_START=$(t_since "$t0")
    not_ok "cluster starts" "see the logs printed above and $WORK/log"
    finish || true
    exit 1
fi
eval "$env_line"
check "start printed SLURM_CONF for $WORK" test "${SLURM_CONF:-}" = "$WORK/slurm.conf"
check "env.sh written" grep -qx "export SLURM_CONF=$WORK/slurm.conf" "$WORK/env.sh"

for d in munged slurmctld slurmd; do
    PIDS+=("$(tr -dc 0-9 <"$WORK/run/$d.pid" 2>/dev/null || true)")
done
all_alive() { local p; for p in "${PIDS[@]}"; do pid_alive "$p" || return 1; done; }
check "daemon pids recorded and alive (${PIDS[*]})" all_alive

again=$("$CLUSTER" start "$WORK" 2>/dev/null || true)
check "second start is a no-op that prints the same environment" test "$again" = "$env_line"

state=$(sinfo -h -o '%P %T' 2>/dev/null || true)
check "partition debug is default and node idle ('$state')" test "$state" = "debug* idle"

max_array=$(scontrol show config 2>/dev/null | sed -n 's/^MaxArraySize *= *//p')
check "scontrol show config reports MaxArraySize = 1001 ('$max_array')" test "$max_array" = 1001

gres=$(scontrol -o show node 2>/dev/null | tr ' ' '\n' | sed -n 's/^Gres=//p')
check "node has no GRES ('$gres')" test "$gres" = "(null)"

# ------------------------------------------------------------ array 0-3 --
mkdir -p "$WORK/out" "$WORK/logs"
t0=$(t_now)
J=$(sbatch --parsable --chdir="$WORK" --output="$WORK/logs/%A_%a.out" --array=0-3 \
    --wrap "echo \$SLURM_ARRAY_TASK_ID > $WORK/out/out.\$SLURM_ARRAY_TASK_ID" 2>&1) || J="sbatch failed: $J"
if [[ $J =~ ^[0-9]+$ ]]; then ok "sbatch --array=0-3 accepted (job $J)"; else not_ok "sbatch --array=0-3" "$J"; fi

four_outputs() { local i; for i in 0 1 2 3; do [[ -s $WORK/out/out.$i ]] || return 1; done; }
if wait_until 60 four_outputs; then
    T_ARRAY=$(t_since "$t0")
    ok "all 4 array outputs written (${T_ARRAY} s)"
else
    T_ARRAY="timeout"
    not_ok "all 4 array outputs written within 60 s" "$(ls "$WORK/out")" "$(squeue 2>&1)"
fi
contents_ok() { local i; for i in 0 1 2 3; do [[ $(cat "$WORK/out/out.$i" 2>/dev/null) == "$i" ]] || return 1; done; }
check "each output holds its SLURM_ARRAY_TASK_ID" contents_ok

all_completed() {
    local n
    n=$(scontrol -o show job "$J" 2>/dev/null | grep -c 'JobState=COMPLETED .*ExitCode=0:0' || true)
    [[ $n -eq 4 ]]
}
if wait_until 30 all_completed; then
    ok "scontrol -o show job $J: 4 elements COMPLETED, ExitCode=0:0"
else
    not_ok "scontrol -o show job $J: 4 elements COMPLETED" "$(scontrol -o show job "$J" 2>&1 | grep -o 'ArrayTaskId=[^ ]*\|JobState=[^ ]*\|ExitCode=[^ ]*' | paste -sd' ')"
fi

JOBCOMP=$(scontrol show config | sed -n 's/^JobCompLoc *= *//p')
check "JobCompLoc is inside the work directory ($JOBCOMP)" test "$JOBCOMP" = "$WORK/log/jobcomp.log"
jobcomp_count() { # ARRAYJOB STATE -> number of jobcomp lines
    grep "ArrayJobId=$1 " "$JOBCOMP" 2>/dev/null | grep -c "JobState=$2 " || true
}
jobcomp_has4() { [[ $(jobcomp_count "$J" COMPLETED) -eq 4 ]]; }
if wait_until 10 jobcomp_has4; then
    ok "jobcomp has 4 COMPLETED lines for array $J"
else
    not_ok "jobcomp has 4 COMPLETED lines for array $J" "$(cat "$JOBCOMP" 2>&1)"
fi
check "jobcomp lines carry ExitCode=0:0" test "$(grep "ArrayJobId=$J " "$JOBCOMP" | grep -c 'ExitCode=0:0')" -eq 4

# ---------------------------------------------------------- failing job --
F=$(sbatch --parsable --chdir="$WORK" --output="$WORK/logs/fail_%j.out" --wrap 'exit 3')
failed() { [[ $(job_field "$F" JobState) == FAILED ]]; }
if wait_until 30 failed; then
    ok "a job exiting 3 is FAILED with ExitCode=$(job_field "$F" ExitCode)"
    check "its ExitCode is 3:0" test "$(job_field "$F" ExitCode)" = "3:0"
else
    not_ok "a job exiting 3 is FAILED" "JobState=$(job_field "$F" JobState)"
fi

# ----------------------------------------------- cancel a running element --
# Element 2 sleeps, the others exit at once; cancel it once it runs.
# shellcheck disable=SC2016 # expanded by the job, not here
C=$(sbatch --parsable --chdir="$WORK" --output="$WORK/logs/%A_%a.out" --array=0-3 \
    --wrap 'if [ "$SLURM_ARRAY_TASK_ID" = 2 ]; then sleep 300; fi')
running2() { [[ $(job_field "${C}_2" JobState) == RUNNING ]]; }
if wait_until 60 running2; then
    ok "element ${C}_2 is RUNNING"
else
    not_ok "element ${C}_2 is RUNNING" "$(squeue 2>&1)"
fi
scancel "${C}_2" || true
cancelled2() { [[ $(job_field "${C}_2" JobState) == CANCELLED ]]; }
if wait_until 30 cancelled2; then
    ok "scancel ${C}_2: scontrol reports CANCELLED (ExitCode=$(job_field "${C}_2" ExitCode))"
else
    not_ok "scancel ${C}_2: scontrol reports CANCELLED" "JobState=$(job_field "${C}_2" JobState)"
fi
jc_cancel() { grep "ArrayJobId=$C ArrayTaskId=2 " "$JOBCOMP" 2>/dev/null | grep -q 'JobState=CANCELLED '; }
if wait_until 10 jc_cancel; then
    ok "jobcomp reports ${C}_2 CANCELLED"
else
    not_ok "jobcomp reports ${C}_2 CANCELLED" "$(grep "ArrayJobId=$C " "$JOBCOMP" 2>&1)"
fi
others_done() { [[ $(jobcomp_count "$C" COMPLETED) -eq 3 ]]; }
check "the other 3 elements of $C COMPLETED" wait_until 30 others_done

# ----------------------------------------------- cancel a pending element --
# Without accounting, a cancelled *pending* element leaves no record at all:
# it just vanishes from the array's task list and never reaches jobcomp.
H=$(sbatch --parsable --hold --chdir="$WORK" --output=/dev/null --array=0-3 --wrap true)
scancel "${H}_2" || true
tasks=$(job_field "$H" ArrayTaskId)
check "scancel of pending ${H}_2 removes it from the array (ArrayTaskId=$tasks)" test "$tasks" = "0-1,3"
if scontrol -o show job "${H}_2" >/dev/null 2>&1; then
    not_ok "pending cancelled ${H}_2 has no job record" "$(scontrol -o show job "${H}_2" 2>&1)"
else
    ok "pending cancelled ${H}_2 has no job record (scontrol: not found)"
fi
scancel "$H" || true

# ------------------------------------------------------------------- stop --
# Leave a running job behind: stop must cancel it and drain the queue.
S=$(sbatch --parsable --chdir="$WORK" --output=/dev/null --wrap 'sleep 300')
running_s() { [[ $(job_field "$S" JobState) == RUNNING ]]; }
check "a job is RUNNING when stop is called" wait_until 30 running_s
t0=$(t_now)
if "$CLUSTER" stop "$WORK"; then
    T_STOP=$(t_since "$t0")
    ok "cluster stops (${T_STOP} s)"
else
    T_STOP=$(t_since "$t0")
    not_ok "cluster stops"
fi
STOPPED=1
none_alive() { local p; for p in "${PIDS[@]}"; do ! pid_alive "$p" || return 1; done; }
check "no daemon pid alive after stop (${PIDS[*]})" none_alive
no_job_procs() {
    local f
    # shellcheck disable=SC2013 # /proc paths have no spaces
    for f in $(grep -slzxF "SLURM_CONF=$WORK/slurm.conf" /proc/[0-9]*/environ 2>/dev/null); do
        f=${f#/proc/}
        f=${f%/environ}
        [[ $f == "$$" || $f == "$BASHPID" ]] && continue
        grep -qz '^SLURM_JOB_ID=' "/proc/$f/environ" 2>/dev/null && pid_alive "$f" && return 1
        [[ $(readlink "/proc/$f/exe" 2>/dev/null) == */slurmstepd* ]] && pid_alive "$f" && return 1
    done
    return 0
}
check "no slurmstepd or job process of this cluster left" no_job_procs
if "$CLUSTER" status "$WORK" >/dev/null 2>&1; then
    not_ok "cluster.sh status reports stopped"
else
    ok "cluster.sh status reports stopped"
fi
check "second stop is a no-op" "$CLUSTER" stop "$WORK"

# ------------------------------------------------ stop after slurmd died --
# slurmstepd and the job outlive a crashed slurmd; stop must still find and
# kill them (they carry SLURM_CONF=<this cluster> in their environment).
W2=$WORK/crash
if "$CLUSTER" start "$W2" >/dev/null 2>&1; then
    X=$(SLURM_CONF=$W2/slurm.conf sbatch --parsable --chdir="$W2" --output=/dev/null --wrap 'srun sleep 300')
    running_x() { SLURM_CONF=$W2/slurm.conf squeue -h -s -j "$X" 2>/dev/null | grep -q "^ *$X\.0 "; }
    if wait_until 30 running_x; then ok "crash test: job step $X.0 running"; else not_ok "crash test: job step $X.0 running"; fi
    kill -KILL "$(tr -dc 0-9 <"$W2/run/slurmd.pid")"
    if "$CLUSTER" stop "$W2"; then ok "crash test: stop succeeds after slurmd was SIGKILLed"; else not_ok "crash test: stop after slurmd SIGKILL"; fi
    left_over() {
        local f
        # shellcheck disable=SC2013 # /proc paths have no spaces
        for f in $(grep -slzxF "SLURM_CONF=$W2/slurm.conf" /proc/[0-9]*/environ 2>/dev/null); do
            f=${f#/proc/}
            f=${f%/environ}
            pid_alive "$f" && [[ $f != "$$" && $f != "$BASHPID" ]] && echo "$f $(tr -d '\0' <"/proc/$f/comm" 2>/dev/null)"
        done
        return 0
    }
    lo=$(left_over | paste -sd,)
    check "crash test: no slurmstepd/job process left (${lo:-none})" test -z "$lo"
else
    not_ok "crash test: second cluster starts"
fi

echo "timings: start ${T_START} s, 4-task array ${T_ARRAY} s, stop ${T_STOP} s (stop had 1 running job to cancel)"
finish
