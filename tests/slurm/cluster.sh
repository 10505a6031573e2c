#!/usr/bin/env bash
# tests/slurm/cluster.sh -- a throw-away, one-node Slurm cluster for tests.
#
#   cluster.sh start  DIR   start munged + slurmctld + slurmd with every
#                           state/spool/pid/log/socket path under DIR; prints
#                           "export SLURM_CONF=DIR/slurm.conf" on stdout (and
#                           writes DIR/env.sh) once the node is idle.
#   cluster.sh stop   DIR   cancel all jobs, wait for an empty queue, stop
#                           slurmd, slurmctld, munged by PID; leaves nothing
#                           running.  Logs stay in DIR/log for inspection.
#   cluster.sh status DIR   print daemon PIDs, sinfo and squeue; exit 1 if a
#                           daemon is down.
#   cluster.sh restart DIR  stop the daemons (queue is kept) and start them
#                           again on the same configuration -- use this after
#                           editing DIR/slurm.conf instead of `scontrol
#                           reconfigure`.
#   cluster.sh deps         install slurm + munge with apt-get if missing
#                           (root only; `start` does this by itself).
#
# Typical use:
#   d=$(mktemp -d); trap 'tests/slurm/cluster.sh stop "$d"' EXIT
#   eval "$(tests/slurm/cluster.sh start "$d")"     # exports SLURM_CONF
#   sbatch --wrap hostname
#
# start and stop are idempotent: `start` on a running cluster only prints the
# environment again; `stop` on a stopped (or never started) cluster is a no-op.
# Daemons are only ever signalled by the PID recorded in DIR/run/*.pid, after
# checking that /proc/PID/cmdline still names the daemon and DIR, so several
# clusters can run side by side.  Progress goes to stderr, stdout carries only
# the export line so that `eval "$(cluster.sh start DIR)"` works.
#
# Tested with Debian 12 slurm-wlm 22.05.8 / munge 0.5.15, as root, without
# systemd and without cgroup delegation.
#
# Environment knobs:
#   CLUSTER_START_TIMEOUT  seconds to wait for the node to become idle (60)
#   CLUSTER_STOP_TIMEOUT   seconds to wait for the queue to drain (60)
#   CLUSTER_MAX_ARRAY_SIZE MaxArraySize written to slurm.conf (1001)
#   CLUSTER_MAX_ARRAY_TASKS max_array_tasks in SchedulerParameters: the most
#                          elements one job array may have (none: Slurm's
#                          default, MaxArraySize)
#   CLUSTER_CRED_EXPIRE    cred_expire in AuthInfo (Slurm's default 120): also
#                          how long a requeued job waits before it may start
#                          again (measured: EligibleTime = requeue + N + 1 s)
#   CLUSTER_SCHED_INTERVAL sched_interval in SchedulerParameters (Slurm's
#                          default 60): how often the main scheduler runs by
#                          itself; a requeued job that became eligible again
#                          waits for it (with 2 and cred_expire=5 it started
#                          6 s after `scontrol requeue`, with the defaults
#                          2-3 minutes)
#   CLUSTER_GHOST_NODES    a hostlist (e.g. "ghost[01-02]") of nodes that are
#                          defined but never start (State=FUTURE, in no
#                          partition): names `sbatch --exclude` accepts
#                          (it refuses unknown ones, and excluding the one
#                          real node leaves a job nowhere to run)
#   CLUSTER_DEBUG          SlurmctldDebug/SlurmdDebug level (info)
#   CLUSTER_NO_INSTALL=1   never call apt-get, fail instead

set -euo pipefail

PROG=${0##*/}
START_TIMEOUT=${CLUSTER_START_TIMEOUT:-60}
STOP_TIMEOUT=${CLUSTER_STOP_TIMEOUT:-60}
MAX_ARRAY_SIZE=${CLUSTER_MAX_ARRAY_SIZE:-1001}
MAX_ARRAY_TASKS=${CLUSTER_MAX_ARRAY_TASKS:-}
CRED_EXPIRE=${CLUSTER_CRED_EXPIRE:-}
SCHED_INTERVAL=${CLUSTER_SCHED_INTERVAL:-}
GHOST_NODES=${CLUSTER_GHOST_NODES:-}
DEBUG_LEVEL=${CLUSTER_DEBUG:-info}
PARTITION=debug

log() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }

usage() {
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# ---------------------------------------------------------------- packages --

deps_missing() {
    local c
    for c in munged mungekey munge unmunge slurmctld slurmd sbatch squeue scancel sinfo scontrol; do
        command -v "$c" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin" command -v "$c" >/dev/null 2>&1 || return 0
    done
    return 1
}

ensure_deps() {
    export PATH="$PATH:/usr/sbin:/sbin"
    deps_missing || return 0
    [[ ${CLUSTER_NO_INSTALL:-0} != 1 ]] || die "slurm/munge binaries missing and CLUSTER_NO_INSTALL=1"
    [[ $(id -u) -eq 0 ]] || die "slurm/munge binaries missing; install them as root: apt-get install slurmctld slurmd slurm-client munge"
    command -v apt-get >/dev/null || die "slurm/munge binaries missing and no apt-get to install them"
    log "installing slurmctld slurmd slurm-client munge with apt-get"
    # Keep the package scripts from starting system-wide daemons (containers
    # without systemd would otherwise run /etc/init.d/munge etc.).
    local policy=/usr/sbin/policy-rc.d own_policy=0
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod 755 "$policy"
        own_policy=1
    fi
    local rc=0
    {
        DEBIAN_FRONTEND=noninteractive apt-get update -q &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
                slurmctld slurmd slurm-client munge
    } >&2 || rc=$?
    [[ $own_policy -eq 0 ]] || rm -f "$policy"
    [[ $rc -eq 0 ]] || die "apt-get install failed (rc=$rc)"
    ! deps_missing || die "slurm/munge still missing after apt-get install"
}

# ------------------------------------------------------------------ helpers --

# Absolute path of DIR without requiring it to exist.
abspath() {
    local d=$1
    [[ $d == /* ]] || d="$PWD/$d"
    # collapse // and trailing /
    d=$(printf '%s' "$d" | sed -e 's#//*#/#g' -e 's#/$##')
    printf '%s' "${d:-/}"
}

# All local TCP ports in use (any state), one per line, from /proc (no ss/netstat needed).
used_ports() {
    local f
    for f in /proc/net/tcp /proc/net/tcp6; do
        [[ -r $f ]] || continue
        awk 'NR > 1 { split($2, a, ":"); print a[2] }' "$f" | while read -r h; do echo $((16#$h)); done
    done | sort -un
}

# Print N distinct free TCP ports below the ephemeral range.
free_ports() {
    local n=$1 lo=20000 hi=32000 used picked=() p tries=0
    used=" $(used_ports | tr '\n' ' ') "
    while ((${#picked[@]} < n)); do
        ((tries++ < 10000)) || die "could not find $n free TCP ports in $lo-$hi"
        p=$((lo + (RANDOM * 32768 + RANDOM) % (hi - lo)))
        [[ $used == *" $p "* ]] && continue
        [[ " ${picked[*]-} " == *" $p "* ]] && continue
        picked+=("$p")
    done
    printf '%s\n' "${picked[@]}"
}

# True if PID is alive and its command line mentions both WHAT and DIR.
pid_is() {
    local pid=$1 what=$2 dir=$3 cmd
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    [[ -r /proc/$pid/cmdline ]] || return 1
    cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
    [[ -n $cmd && $cmd == *"$what"* && $cmd == *"$dir"* ]] || return 1
    # zombies count as dead
    [[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) != Z ]]
}

read_pid() { if [[ -s $1 ]]; then tr -dc '0-9' <"$1" 2>/dev/null || true; fi; }

# daemon_pid NAME -> prints PID if that daemon of this cluster is running.
daemon_pid() {
    local name=$1 pid
    pid=$(read_pid "$RUN/$name.pid")
    if [[ -n $pid ]] && pid_is "$pid" "$name" "$DIR"; then
        printf '%s' "$pid"
    fi
}

show_log() {
    local f=$1 n=${2:-40}
    if [[ -s $f ]]; then
        printf '%s: ---- last %d lines of %s ----\n' "$PROG" "$n" "$f" >&2
        tail -n "$n" "$f" >&2
        printf '%s: ---- end of %s ----\n' "$PROG" "$f" >&2
    else
        log "(log file $f is missing or empty)"
    fi
}

show_all_logs() {
    local f
    for f in "$LOGD/munged.log" "$LOGD/slurmctld.log" "$LOGD/slurmd.log" "$LOGD"/*.stdout; do
        [[ -e $f ]] && show_log "$f" 30
    done
    return 0
}

# wait_for SECONDS DESCRIPTION COMMAND... : poll COMMAND every 0.2 s.
wait_for() {
    local secs=$1 what=$2
    shift 2
    local deadline=$(($(date +%s) + secs))
    while ! "$@" >/dev/null 2>&1; do
        if (($(date +%s) >= deadline)); then
            log "timed out after ${secs}s waiting for $what"
            return 1
        fi
        sleep 0.2
    done
}

# Stop one daemon by PID: TERM, wait, KILL.
stop_daemon() {
    local name=$1 pid i
    pid=$(daemon_pid "$name")
    if [[ -z $pid ]]; then
        rm -f "$RUN/$name.pid"
        return 0
    fi
    local t0
    t0=$(now)
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do # 20 s
        pid_is "$pid" "$name" "$DIR" || break
        sleep 0.2
    done
    if pid_is "$pid" "$name" "$DIR"; then
        log "$name (pid $pid) ignored SIGTERM for 20 s; sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        for ((i = 0; i < 25; i++)); do
            pid_is "$pid" "$name" "$DIR" || break
            sleep 0.2
        done
    fi
    pid_is "$pid" "$name" "$DIR" && die "$name (pid $pid) does not die; see $LOGD/$name.log"
    log "stopped $name (pid $pid) in $(elapsed "$t0") s"
    rm -f "$RUN/$name.pid"
}

# PIDs (non-zombie, not this script or its ancestors) whose environment holds
# every one of the given NAME=VALUE lines; an argument ending in '=' matches
# any value.  One grep over /proc, so it is cheap and needs no ps.
procs_with_env() {
    local chain=" " p=$$ f pid first=$1 cand
    shift
    while [[ $p =~ ^[0-9]+$ && $p -gt 1 ]]; do
        chain+="$p "
        p=$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null || echo 0)
    done
    if [[ $first == *= ]]; then
        cand=$(grep -slz "^$first" /proc/[0-9]*/environ 2>/dev/null || true)
    else
        cand=$(grep -slzxF "$first" /proc/[0-9]*/environ 2>/dev/null || true)
    fi
    for f in $cand; do
        pid=${f#/proc/}
        pid=${pid%/environ}
        [[ $chain == *" $pid "* ]] && continue
        local ok=1 want
        for want in "$@"; do
            if [[ $want == *= ]]; then
                grep -qz "^$want" "$f" 2>/dev/null || { ok=0; break; }
            else
                grep -qzxF "$want" "$f" 2>/dev/null || { ok=0; break; }
            fi
        done
        [[ $ok -eq 1 ]] || continue
        [[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) == [ZX] ]] && continue
        [[ -e /proc/$pid ]] && echo "$pid"
    done
    return 0
}

# Processes left behind by slurmd: slurmstepd (slurmd hands it a clean
# environment with just our SLURM_CONF) and job processes (SLURM_CONF of this
# cluster and a SLURM_JOB_ID).  Client commands of the caller (sbatch, squeue,
# a test script that exported SLURM_CONF) have no SLURM_JOB_ID and are kept.
stray_pids() {
    local pid
    {
        for pid in $(procs_with_env "SLURM_CONF=$CONF"); do
            [[ $(readlink "/proc/$pid/exe" 2>/dev/null) == */slurmstepd* ]] && echo "$pid"
        done
        procs_with_env "SLURM_CONF=$CONF" "SLURM_JOB_ID="
    } | sort -un
}

# Anything at all started by this cluster (daemons, slurmscriptd, steps, jobs).
cluster_pids() {
    {
        procs_with_env "RUNNER_TEST_CLUSTER=$DIR"
        stray_pids
    } | sort -un
}

# ------------------------------------------------------------------- config --

write_config() {
    local ctld_port=$1 slurmd_port=$2 host node_line
    host=$(hostname -s)
    # Node definition exactly as slurmd sees the hardware (first line only;
    # the second is UpTime=...).
    node_line=$(slurmd -C 2>/dev/null | head -n 1)
    [[ $node_line == NodeName=* ]] || die "slurmd -C gave no node line: '$node_line'"
    # slurmd identifies itself by the short hostname.
    node_line=$(sed -E "s/^NodeName=[^ ]+/NodeName=$host/" <<<"$node_line")
    NODE=$host

    cat >"$CONF" <<EOF
# Generated by tests/slurm/cluster.sh on $(date -u +%FT%TZ) -- one-node test cluster.
ClusterName=runnertest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port

AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET${CRED_EXPIRE:+,cred_expire=$CRED_EXPIRE}

StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/slurmd-%n
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd.pid
SlurmctldLogFile=$LOGD/slurmctld.log
SlurmdLogFile=$LOGD/slurmd.log
SlurmctldDebug=$DEBUG_LEVEL
SlurmdDebug=$DEBUG_LEVEL

# No systemd, no cgroup delegation: track processes by parent PID.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SwitchType=switch/none
LaunchType=launch/slurm

SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0${MAX_ARRAY_TASKS:+,max_array_tasks=$MAX_ARRAY_TASKS}${SCHED_INTERVAL:+,sched_interval=$SCHED_INTERVAL}

AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$LOGD/jobcomp.log

# Keep finished jobs visible to scontrol for an hour.
MinJobAge=3600
MaxJobCount=100000
MaxArraySize=$MAX_ARRAY_SIZE
KillWait=5
OverTimeLimit=0
InactiveLimit=0
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=60
MessageTimeout=10
MailProg=/bin/true

$node_line NodeAddr=127.0.0.1 State=UNKNOWN
${GHOST_NODES:+NodeName=$GHOST_NODES NodeAddr=127.0.0.1 CPUs=1 State=FUTURE}
PartitionName=$PARTITION Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

    # Read from the directory of slurm.conf.  cgroup/v1 keeps slurmd from
    # probing /sys/fs/cgroup (v2 needs systemd delegation); with
    # proctrack/linuxproc and task/none nothing else uses cgroups.
    cat >"$DIR/cgroup.conf" <<EOF
CgroupPlugin=cgroup/v1
EOF
}

write_env() {
    cat >"$DIR/env.sh" <<EOF
# source this file to talk to the test cluster in $DIR
export SLURM_CONF=$CONF
EOF
}

print_env() { printf 'export SLURM_CONF=%s\n' "$CONF"; }

# ------------------------------------------------------------------- daemons --

start_munged() {
    if [[ -n $(daemon_pid munged) ]]; then return 0; fi
    rm -f "$RUN/munged.pid" "$MUNGE_SOCKET" "$MUNGE_SOCKET.lock"
    if [[ ! -s $DIR/munge/munge.key ]]; then
        if ! mungekey --create --keyfile="$DIR/munge/munge.key" >/dev/null 2>&1; then
            dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none
        fi
    fi
    chmod 0400 "$DIR/munge/munge.key"
    env RUNNER_TEST_CLUSTER="$DIR" RUNNER_TEST_DAEMON=munged munged \
        --socket="$MUNGE_SOCKET" \
        --key-file="$DIR/munge/munge.key" \
        --pid-file="$RUN/munged.pid" \
        --log-file="$LOGD/munged.log" \
        --seed-file="$DIR/munge/munged.seed" \
        --num-threads=2 \
        </dev/null >>"$LOGD/munged.stdout" 2>&1 ||
        { show_log "$LOGD/munged.stdout"; show_log "$LOGD/munged.log"; die "munged failed to start; see $LOGD/munged.log and $LOGD/munged.stdout"; }
    if ! wait_for 15 "munged socket $MUNGE_SOCKET" test -S "$MUNGE_SOCKET"; then
        show_log "$LOGD/munged.stdout"; show_log "$LOGD/munged.log"
        die "munged did not create its socket; see $LOGD/munged.log"
    fi
    # Round-trip a credential to prove the key and socket work.
    if ! munge -n -S "$MUNGE_SOCKET" | unmunge -S "$MUNGE_SOCKET" >/dev/null 2>&1; then
        show_log "$LOGD/munged.log"
        die "munge/unmunge round trip through $MUNGE_SOCKET failed; see $LOGD/munged.log"
    fi
}

start_slurmctld() {
    if [[ -n $(daemon_pid slurmctld) ]]; then return 0; fi
    rm -f "$RUN/slurmctld.pid"
    # -i: ignore unreadable state; a fresh StateSaveLocation is a cold start anyway.
    env RUNNER_TEST_CLUSTER="$DIR" RUNNER_TEST_DAEMON=slurmctld SLURM_CONF="$CONF" slurmctld -f "$CONF" -i \
        </dev/null >>"$LOGD/slurmctld.stdout" 2>&1 ||
        { show_log "$LOGD/slurmctld.stdout"; show_log "$LOGD/slurmctld.log"; die "slurmctld failed to start; see $LOGD/slurmctld.log and $LOGD/slurmctld.stdout"; }
    if ! wait_for 20 "slurmctld to answer" env SLURM_CONF="$CONF" scontrol ping; then
        show_log "$LOGD/slurmctld.stdout"; show_log "$LOGD/slurmctld.log"
        die "slurmctld is not answering; see $LOGD/slurmctld.log"
    fi
    [[ -n $(daemon_pid slurmctld) ]] || { show_log "$LOGD/slurmctld.log"; die "slurmctld has no live pid file $RUN/slurmctld.pid; see $LOGD/slurmctld.log"; }
}

start_slurmd() {
    if [[ -n $(daemon_pid slurmd) ]]; then return 0; fi
    rm -f "$RUN/slurmd.pid"
    env RUNNER_TEST_CLUSTER="$DIR" RUNNER_TEST_DAEMON=slurmd SLURM_CONF="$CONF" slurmd -f "$CONF" \
        </dev/null >>"$LOGD/slurmd.stdout" 2>&1 ||
        { show_log "$LOGD/slurmd.stdout"; show_log "$LOGD/slurmd.log"; die "slurmd failed to start; see $LOGD/slurmd.log and $LOGD/slurmd.stdout"; }
    if ! wait_for 15 "slurmd pid file" daemon_pid_nonempty slurmd; then
        show_log "$LOGD/slurmd.stdout"; show_log "$LOGD/slurmd.log"
        die "slurmd did not stay up; see $LOGD/slurmd.log"
    fi
}

daemon_pid_nonempty() { [[ -n $(daemon_pid "$1") ]]; }

node_state() { SLURM_CONF="$CONF" sinfo -h -n "$NODE" -o '%T' 2>/dev/null | head -n 1; }

node_idle() {
    local s
    s=$(node_state)
    # idle, possibly with a flag suffix other than drain/down ("idle*" means not responding)
    [[ $s == idle || $s == mixed || $s == allocated ]]
}

wait_idle() {
    local deadline=$(($(date +%s) + START_TIMEOUT)) s
    while :; do
        node_idle && return 0
        for d in munged slurmctld slurmd; do
            if [[ -z $(daemon_pid $d) ]]; then
                show_all_logs
                die "$d died while waiting for node $NODE; see $LOGD/$d.log"
            fi
        done
        if (($(date +%s) >= deadline)); then
            s=$(node_state)
            log "node $NODE is '${s:-unknown}', not idle, after ${START_TIMEOUT}s"
            SLURM_CONF="$CONF" scontrol show node "$NODE" >&2 || true
            show_all_logs
            die "cluster did not become ready; see $LOGD/slurmctld.log and $LOGD/slurmd.log"
        fi
        sleep 0.2
    done
}

# ---------------------------------------------------------------- commands --

setup_paths() {
    [[ -n ${1:-} ]] || usage
    DIR=$(abspath "$1")
    CONF=$DIR/slurm.conf
    RUN=$DIR/run
    LOGD=$DIR/log
    MUNGE_SOCKET=$DIR/munge/munge.socket
    NODE=$(hostname -s)
}

cmd_start() {
    local t0 ports attempt
    t0=$(now)
    ensure_deps
    [[ $(id -u) -eq 0 ]] || die "must run as root (SlurmUser=root, munged and slurmd run as root)"
    # A Unix socket path is limited to 108 bytes.
    ((${#MUNGE_SOCKET} < 100)) || die "DIR too long for a Unix socket path ($MUNGE_SOCKET); use a shorter directory such as \$(mktemp -d)"

    mkdir -p "$DIR"
    # Already running? Just hand out the environment again.
    if [[ -s $CONF && -n $(daemon_pid munged) && -n $(daemon_pid slurmctld) && -n $(daemon_pid slurmd) ]]; then
        log "cluster in $DIR already running"
        write_env
        print_env
        return 0
    fi
    # Partially running (a daemon died): stop what is left and start clean.
    if [[ -n $(daemon_pid munged)$(daemon_pid slurmctld)$(daemon_pid slurmd) ]]; then
        log "cluster in $DIR is partially running; restarting it"
        stop_daemons
    fi

    # A failed start must not leave half a cluster behind.
    trap 'rc=$?; if ((rc != 0)); then log "start failed; stopping the daemons it started"; stop_daemons >/dev/null 2>&1 || true; fi' EXIT

    mkdir -p "$DIR/state" "$DIR/spool" "$RUN" "$LOGD" "$DIR/munge"
    # Clients (and job steps) must reach the munge socket: every folder on
    # its path needs o+x; munged wants its own folders not group/other writable.
    chmod 0755 "$DIR" "$DIR/munge" "$RUN" "$LOGD"
    chmod 0700 "$DIR/state" "$DIR/spool"
    local p=$DIR
    while [[ $p != / && -n $p ]]; do
        p=$(dirname "$p")
        [[ $(stat -c %A "$p") == ?????????[xt] ]] ||
            log "warning: $p is not searchable by others; munge clients may fail"
    done

    for attempt in 1 2 3; do
        mapfile -t ports < <(free_ports 2)
        if [[ $attempt -gt 1 || ! -s $CONF ]] || ! grep -q '^SlurmctldPort=' "$CONF"; then
            write_config "${ports[0]}" "${ports[1]}"
        else
            # keep a previous configuration (restart) but check its ports are free
            local cp sp
            cp=$(sed -n 's/^SlurmctldPort=//p' "$CONF")
            sp=$(sed -n 's/^SlurmdPort=//p' "$CONF")
            if used_ports | grep -qxE "$cp|$sp"; then
                log "ports $cp/$sp of the existing $CONF are busy; switching to ${ports[0]}/${ports[1]}"
                sed -i -e "s/^SlurmctldPort=.*/SlurmctldPort=${ports[0]}/" \
                    -e "s/^SlurmdPort=.*/SlurmdPort=${ports[1]}/" "$CONF"
            fi
        fi
        write_env
        start_munged
        if start_slurmctld_try; then break; fi
        [[ $attempt -lt 3 ]] || { show_all_logs; die "slurmctld failed to start 3 times; see $LOGD/slurmctld.log"; }
        log "slurmctld port clash, retrying with new ports"
    done
    start_slurmd
    wait_idle
    trap - EXIT
    log "cluster up in $DIR: node $NODE idle, partition $PARTITION, slurmctld port $(sed -n 's/^SlurmctldPort=//p' "$CONF") (started in $(elapsed "$t0") s)"
    print_env
}

# Start slurmctld; return 1 (for a retry with new ports) only on a bind error.
start_slurmctld_try() {
    local before=0
    [[ -e $LOGD/slurmctld.log ]] && before=$(wc -l <"$LOGD/slurmctld.log")
    if (start_slurmctld); then return 0; fi
    if tail -n +"$((before + 1))" "$LOGD/slurmctld.log" 2>/dev/null | grep -qi 'address already in use'; then
        stop_daemon slurmctld
        return 1
    fi
    exit 1
}

stop_daemons() {
    stop_daemon slurmd
    kill_strays
    stop_daemon slurmctld
    stop_daemon munged
}

kill_strays() {
    local strays
    strays=$(stray_pids | tr '\n' ' ')
    if [[ -n ${strays// /} ]]; then
        log "killing leftover job processes of this cluster: $strays"
        # shellcheck disable=SC2086
        kill -KILL $strays 2>/dev/null || true
        sleep 0.5
    fi
}

cmd_stop() {
    local t0
    t0=$(now)
    if [[ ! -d $DIR ]]; then
        log "no cluster directory $DIR; nothing to stop"
        return 0
    fi
    export PATH="$PATH:/usr/sbin:/sbin"
    if [[ -n $(daemon_pid slurmctld) && -s $CONF ]]; then
        export SLURM_CONF=$CONF
        local ids
        ids=$(squeue -h -o '%A' 2>/dev/null | tr '\n' ' ' || true)
        if [[ -n ${ids// /} ]]; then
            log "cancelling jobs: $ids"
            # shellcheck disable=SC2086
            scancel $ids 2>/dev/null || true
        fi
        local deadline=$(($(date +%s) + STOP_TIMEOUT)) left
        while :; do
            left=$(squeue -h -o '%A %T' 2>/dev/null) || left="(squeue failed)"
            [[ -z $left ]] && break
            if [[ -z $(daemon_pid slurmd) ]]; then
                log "slurmd is not running, so the queue cannot drain; killing job processes directly"
                break
            fi
            if (($(date +%s) >= deadline)); then
                log "queue not empty after ${STOP_TIMEOUT}s, stopping anyway:"
                printf '%s\n' "$left" >&2
                break
            fi
            # new submissions may have raced in
            ids=$(squeue -h -t PD,R,S -o '%A' 2>/dev/null | tr '\n' ' ' || true)
            # shellcheck disable=SC2086
            [[ -z ${ids// /} ]] || scancel $ids 2>/dev/null || true
            sleep 0.2
        done
    fi
    stop_daemons
    local d bad=""
    for d in munged slurmctld slurmd; do
        [[ -z $(daemon_pid $d) ]] || bad+=" $d"
    done
    [[ -z $bad ]] || die "still running:$bad"
    local left
    left=$(cluster_pids | tr '\n' ' ')
    if [[ -n ${left// /} ]]; then
        log "killing leftover processes of this cluster: $left"
        # shellcheck disable=SC2086
        kill -KILL $left 2>/dev/null || true
        sleep 0.5
        left=$(cluster_pids | tr '\n' ' ')
        [[ -z ${left// /} ]] || die "leftover processes survive SIGKILL: $left"
    fi
    rm -f "$MUNGE_SOCKET" "$MUNGE_SOCKET.lock"
    log "cluster in $DIR stopped (in $(elapsed "$t0") s)"
}

cmd_status() {
    local d rc=0 pid
    for d in munged slurmctld slurmd; do
        pid=$(daemon_pid $d)
        if [[ -n $pid ]]; then
            printf '%-10s running (pid %s)\n' "$d" "$pid"
        else
            printf '%-10s stopped\n' "$d"
            rc=1
        fi
    done
    if [[ -n $(daemon_pid slurmctld) ]]; then
        SLURM_CONF=$CONF sinfo || true
        SLURM_CONF=$CONF squeue || true
    fi
    return $rc
}

cmd_restart() {
    [[ -s $CONF ]] || die "no $CONF; use '$PROG start $DIR'"
    stop_daemon slurmd
    stop_daemon slurmctld
    # munged keeps running; slurmctld recovers jobs from $DIR/state.
    start_munged
    start_slurmctld
    start_slurmd
    wait_idle
    write_env
    print_env
}

main() {
    local cmd=${1:-}
    case $cmd in
        start) setup_paths "${2:-}"; cmd_start ;;
        stop) setup_paths "${2:-}"; cmd_stop ;;
        status) setup_paths "${2:-}"; cmd_status ;;
        restart) setup_paths "${2:-}"; ensure_deps; cmd_restart ;;
        deps) ensure_deps ;;
        -h | --help | help | "") usage ;;
        *) log "unknown command '$cmd'"; usage ;;
    esac
}

main "$@"
