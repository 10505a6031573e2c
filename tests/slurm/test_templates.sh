#!/usr/bin/env bash
# tests/slurm/test_templates.sh -- render jobs/shard.sbatch and
# jobs/collect.sbatch the way `runner submit` will, and run them on a real
# one-node cluster (tests/slurm/cluster.sh) with a fake runner:
#   * a 4-shard array with throttle %2, extra #SBATCH lines, OMP variables,
#     per-shard .exit files, and a collect job behind --dependency=afterany;
#   * a drain: a 1-minute shard gets SIGTERM from --signal=B:TERM@60, the
#     batch shell forwards it, the runner exits 143 before the time limit.
# Takes about 40 s (Slurm checks time limits every 30 s).  Root only.
#
#   tests/slurm/test_templates.sh        # KEEP=1 keeps the work directory

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CLUSTER=$HERE/cluster.sh
# shellcheck source=tests/slurm/lib.sh
source "$HERE/lib.sh"
skip_unless_root

SHARD_T=$ROOT/jobs/shard.sbatch
COLLECT_T=$ROOT/jobs/collect.sbatch

WORK=$(mktemp -d "${TMPDIR:-/tmp}/slurmtpl.XXXXXX")
chmod 755 "$WORK"
cleanup() {
    local rc=$?
    stop_cluster_and_exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# render TEMPLATE OUTFILE key=value... : replace every {{key}}; fail if any
# {{...}} is left (this is the contract the C++ renderer follows).
render() {
    local tpl=$1 out=$2 text kv key val
    shift 2
    text=$(<"$tpl")
    for kv in "$@"; do
        key=${kv%%=*}
        val=${kv#*=}
        text=${text//"{{$key}}"/$val}
    done
    if grep -q '{{' <<<"$text"; then
        echo "unfilled fields in $tpl: $(grep -o '{{[a-z_]*}}' <<<"$text" | sort -u | paste -sd' ')" >&2
        return 1
    fi
    printf '%s\n' "$text" >"$out"
}

# ------------------------------------------------------------ static checks --
fields() { grep -o '{{[a-z_]*}}' "$1" | tr -d '{}' | sort -u | paste -sd' '; }
check "shard.sbatch fields: $(fields "$SHARD_T")" test "$(fields "$SHARD_T")" = \
    "account_line array config constraint_line cpus exclude_line extra_lines gpus_line gres_line job_name mem_line num_shards out_dir partition_line qos_line runner runner_args setup_lines shard_map time"
check "collect.sbatch fields: $(fields "$COLLECT_T")" test "$(fields "$COLLECT_T")" = \
    "account_line collect_args exclude_line extra_lines job_name out_dir partition_line qos_line runner setup_lines"
undocumented=()
for f in shard collect; do
    t=$ROOT/jobs/$f.sbatch
    for k in $(fields "$t"); do
        grep -q "^#   $k " "$t" || undocumented+=("$f.sbatch header: $k")
        grep -q "| \`$k\`" "$ROOT/jobs/README.md" || undocumented+=("jobs/README.md table: $k")
    done
done
if ((${#undocumented[@]} == 0)); then
    ok "every field is documented in the template header and jobs/README.md"
else
    not_ok "every field is documented in the template header and jobs/README.md" "${undocumented[@]}"
fi

# Directives must all come before the first command line.
directives_first() {
    awk '/^#SBATCH/ { if (cmd) bad = 1 } !/^#/ && !/^[[:space:]]*$/ { cmd = 1 } END { exit bad }' "$1"
}

# ----------------------------------------------------------------- cluster --
if env_line=$("$CLUSTER" start "$WORK"); then ok "cluster starts"; else
    not_ok "cluster starts"
    finish || true
    exit 1
fi
eval "$env_line"

# Fake runner: "runner CONFIG --shard I/N --out DIR --resume [--force-mix]" or
# "runner collect DIR [--force-mix]".  CONFIG holds mode=normal|drain.
FAKE=$WORK/fake-runner
cat >"$FAKE" <<'EOF'
#!/bin/bash
set -u
if [[ $1 == collect ]]; then
    out=$2
    echo "collect args: ${*:3}" >"$out/collect.args"
    ls "$out"/results/shard-*.txt | sort >"$out/collected.txt"
    date +%s.%N >"$out/collect.time"
    exit 0
fi
config=$1; shift
shard=; out=; args=
while (($#)); do
    case $1 in
        --shard) shard=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --resume | --force-mix) args="$args $1"; shift ;;
        *) echo "fake runner: unknown arg $1" >&2; exit 2 ;;
    esac
done
i=${shard%/*}
mkdir -p "$out/results"
f=$out/results/shard-$i.txt
{
    echo "shard=$shard out=$out args=${args# } config=$config"
    echo "OMP_NUM_THREADS=${OMP_NUM_THREADS:-} OMP_PROC_BIND=${OMP_PROC_BIND:-} OMP_PLACES=${OMP_PLACES:-}"
    echo "step=${SLURM_STEP_ID:-none}"
} >"$f"
if grep -q mode=drain "$config"; then
    trap 'echo "TERM at $(date +%s)" >>"$f"; echo drained >>"$f"; exit 143' TERM
    echo "started at $(date +%s)" >>"$f"
    while :; do sleep 0.5; done
fi
sleep 1
date +%s.%N >"$out/results/shard-$i.end"
exit 0
EOF
chmod +x "$FAKE"

# ------------------------------------------------- 4 shards + collect job --
R1=$WORK/run1
mkdir -p "$R1/logs" "$R1/slurm"
echo "mode=normal" >"$R1/config.yaml"
common=(job_name=tpltest out_dir="$R1" runner="$FAKE"
    partition_line="#SBATCH --partition=debug" account_line= qos_line= exclude_line= setup_lines=
    extra_lines=$'#SBATCH --comment=templtest\n#SBATCH --nice=0')
if render "$SHARD_T" "$R1/slurm/shard.sbatch" "${common[@]}" array=0-3%2 time=00:05:00 cpus=1 \
    num_shards=4 config="$R1/config.yaml" runner_args= shard_map= gres_line= constraint_line= mem_line= gpus_line= &&
    render "$COLLECT_T" "$R1/slurm/collect.sbatch" "${common[@]}" collect_args=; then
    ok "templates render with no field left"
else
    not_ok "templates render with no field left"
fi
check "rendered shard.sbatch passes bash -n" bash -n "$R1/slurm/shard.sbatch"
check "rendered collect.sbatch passes bash -n" bash -n "$R1/slurm/collect.sbatch"
check "rendered shard.sbatch has all #SBATCH lines before the first command" directives_first "$R1/slurm/shard.sbatch"
check "rendered collect.sbatch has all #SBATCH lines before the first command" directives_first "$R1/slurm/collect.sbatch"
check "rendered shard.sbatch appends to its logs (a requeued element keeps its earlier log)" \
    grep -qxF -- "#SBATCH --open-mode=append" "$R1/slurm/shard.sbatch"

t0=$(t_now)
# OMP_PLACES preset by the user must survive; OMP_PROC_BIND gets the default.
J=$(cd "$WORK" && env -u OMP_PROC_BIND OMP_PLACES=threads sbatch --parsable "$R1/slurm/shard.sbatch" 2>&1) || true
if [[ $J =~ ^[0-9]+$ ]]; then ok "shard array submitted (job $J)"; else not_ok "shard array submitted" "$J"; fi
check "throttle %2 read back (ArrayTaskThrottle=$(job_field "$J" ArrayTaskThrottle))" test "$(job_field "$J" ArrayTaskThrottle)" = 2
check "extra line --comment applied (Comment=$(job_field "$J" Comment))" test "$(job_field "$J" Comment)" = templtest
C=$(cd "$WORK" && sbatch --parsable --dependency="afterany:$J" "$R1/slurm/collect.sbatch" 2>&1) || true
if [[ $C =~ ^[0-9]+$ ]]; then ok "collect submitted with --dependency=afterany:$J (job $C)"; else not_ok "collect submitted" "$C"; fi
check "collect job name is tpltest-collect" test "$(job_field "$C" JobName)" = tpltest-collect

collect_done() { [[ $(job_field "$C" JobState) == COMPLETED ]]; }
if wait_until 90 collect_done; then
    ok "collect job COMPLETED after the array ($(t_since "$t0") s)"
else
    not_ok "collect job COMPLETED" "JobState=$(job_field "$C" JobState) Reason=$(job_field "$C" Reason)" "$(squeue 2>&1)"
fi
check "collect saw 4 shard results" test "$(wc -l <"$R1/collected.txt" 2>/dev/null || echo 0)" -eq 4
after_all() {
    local e c
    c=$(cat "$R1/collect.time")
    for e in "$R1"/results/shard-*.end; do
        awk -v a="$(cat "$e")" -v c="$c" 'BEGIN { exit !(c >= a) }' || return 1
    done
}
check "collect ran after every shard ended" after_all
shard_ok() {
    local i f
    for i in 0 1 2 3; do
        f=$R1/results/shard-$i.txt
        grep -qx "shard=$i/4 out=$R1 args=--resume config=$R1/config.yaml" "$f" || return 1
        grep -qx "OMP_NUM_THREADS=1 OMP_PROC_BIND=close OMP_PLACES=threads" "$f" || return 1
        grep -qx "step=0" "$f" || return 1 # ran under srun as step 0
    done
}
check "each shard got --shard I/4 --out DIR --resume, OMP vars, ran as srun step 0" shard_ok
check "collect got no extra argument" grep -qx "collect args: " "$R1/collect.args"
exit_files() {
    local i
    for i in 0 1 2 3; do
        grep -q "^start job=[0-9]* array_job=$J task=$i shard=$i num_shards=4 .* restarts=0$" "$R1/logs/${J}_$i.exit" || return 1
        grep -q "^exit=0 job=[0-9]* array_job=$J task=$i shard=$i num_shards=4 .* drained=0 restarts=0$" "$R1/logs/${J}_$i.exit" || return 1
        grep -q "^\[shard.sbatch\] .* shard $i/4 attempt 1 (restarts=0) on " "$R1/logs/${J}_$i.out" || return 1
        [[ -e $R1/logs/${J}_$i.out && -e $R1/logs/${J}_$i.err ]] || return 1
    done
}
check "logs/%A_%a.out/.err and .exit (start and exit=0 lines, restarts=0) written per shard" exit_files
check "collect log written" test -s "$(ls "$R1"/logs/collect_"$C".out 2>/dev/null || echo /nonexistent)"
states=$(scontrol -o show job "$J" | grep -o 'JobState=[A-Z]*' | sort | uniq -c | awk '{print $1, $2}' | paste -sd,)
check "all 4 shards COMPLETED ($states)" test "$states" = "4 JobState=COMPLETED"

# ------------------------------------------------------------------- drain --
R2=$WORK/run2
mkdir -p "$R2/logs" "$R2/slurm"
echo "mode=drain" >"$R2/config.yaml"
echo 5 >"$R2/slurm/shard_map.txt"
render "$SHARD_T" "$R2/slurm/shard.sbatch" job_name=draintest out_dir="$R2" runner="$FAKE" \
    partition_line= account_line= qos_line= extra_lines= array=0 time=1 cpus=2 num_shards=8 \
    config="$R2/config.yaml" runner_args=--force-mix shard_map="$R2/slurm/shard_map.txt" gres_line= constraint_line= \
    mem_line= gpus_line= exclude_line= setup_lines=
t0=$(t_now)
D=$(cd "$WORK" && sbatch --parsable "$R2/slurm/shard.sbatch")
D_el=${D}_0
ended() { [[ $(job_field "$D_el" JobState) =~ ^(COMPLETED|FAILED|TIMEOUT|CANCELLED)$ ]]; }
if wait_until 100 ended; then
    T_DRAIN=$(t_since "$t0")
    ok "1-minute shard ended after ${T_DRAIN} s"
else
    T_DRAIN=timeout
    not_ok "1-minute shard ended within 100 s" "$(squeue 2>&1)"
fi
st=$(job_field "$D_el" JobState)
ec=$(job_field "$D_el" ExitCode)
check "drained shard is FAILED with ExitCode 143:0, not TIMEOUT ($st $ec)" test "$st $ec" = "FAILED 143:0"
check "runner received SIGTERM and drained" grep -qx drained "$R2/results/shard-5.txt"
check "array index 0 ran shard 5 of the shard map, with --resume --force-mix" grep -qx \
    "shard=5/8 out=$R2 args=--resume --force-mix config=$R2/config.yaml" "$R2/results/shard-5.txt"
check "cpus=2 gives OMP_NUM_THREADS=2" grep -q "^OMP_NUM_THREADS=2 " "$R2/results/shard-5.txt"
check "batch log says it forwarded TERM" grep -q 'SIGTERM (time limit near, or scancel): asking the runner to drain' "$R2/logs/${D}_0.out"
check ".exit file has exit=143 drained=1" grep -q '^exit=143 .* task=0 shard=5 num_shards=8 .* drained=1 restarts=0$' "$R2/logs/${D}_0.exit"
lead=$(awk '/^started at/ { s = $3 } /^TERM at/ { t = $3 } END { if (s && t) print t - s }' "$R2/results/shard-5.txt")
diag "SIGTERM reached the runner ${lead:-?} s after it started (limit 60 s)"
check "TERM arrived before the time limit" test "${lead:-999}" -lt 60

echo "timings: 4-shard array + collect as above, drain ${T_DRAIN} s"
finish
