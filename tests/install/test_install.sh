#!/usr/bin/env bash
# tests/install/test_install.sh -- the runner as an installed tool (docs/install.md), end to end:
#   * `cmake --install` into a temporary prefix, then the prefix moved elsewhere;
#   * in a mount namespace where the source tree (and the build tree inside it) is hidden under an
#     empty tmpfs, so that a runner that still read either would fail: from the moved prefix,
#     `runner --version` names it, `runner list`, a CPU config runs verified, `runner report` and
#     `runner compare` work on its results, the tutorial's CPU plugin and the example family
#     (docs/own-kernel.md) are built from a folder outside the source tree and run verified with
#     their report, a CMake project builds a plugin with find_package(runner), and `runner submit`
#     runs a config with a plugin on the real Slurm cluster of the tests (its shards load the
#     submitted copies) and collects it;
#   * the man page, the bash and zsh completions and the pandas reader the build generated work
#     from the moved prefix;
#   * the module files load with the real Lmod (Lua and Tcl) and put the moved prefix on PATH,
#     its man page on MANPATH and its completions on XDG_DATA_DIRS;
#   * a prefix missing share/runner/jobs says which file it looked for, and where (exit 2).
# Root only (mount namespace, Slurm daemons). About 2 minutes on 2 cores.
#
#   RUNNER_BIN=build/bin/runner tests/install/test_install.sh     # KEEP=1 keeps the work directory
set -euo pipefail

if [[ ${1:-} != --inside ]]; then
  HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  ROOT=$(cd "$HERE/../.." && pwd)
  # shellcheck source=tests/slurm/lib.sh
  source "$ROOT/tests/slurm/lib.sh"
  skip_unless_root
  find_runner
  BUILD=$(dirname "$(dirname "$RUNNER")")
  command -v unshare >/dev/null || { echo "1..0 # SKIP no unshare (util-linux)"; exit 77; }
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/runner-install.XXXXXX")
  chmod 755 "$WORK"
  echo "# installing $BUILD into $WORK/prefix"
  cmake --install "$BUILD" --prefix "$WORK/prefix" >"$WORK/install.log"
  mv "$WORK/prefix" "$WORK/moved"
  # What the hidden half of the test needs from the source tree, copied out first.
  mkdir -p "$WORK/test"
  cp "$HERE/test_install.sh" "$ROOT/tests/slurm/lib.sh" "$ROOT/tests/slurm/cluster.sh" "$WORK/test/"
  export WORK ROOT
  exec unshare --mount --propagation private "$WORK/test/test_install.sh" --inside
fi

# ---------------------------------------------------------------- inside the namespace --
# WORK and ROOT (the source tree) come from the first half, through the environment.
[[ -d ${WORK:-} && -d ${ROOT:-} && $WORK != "$ROOT"* ]] || { echo "Bail out! WORK/ROOT unset"; exit 1; }
source "$WORK/test/lib.sh"
P=$WORK/moved
R=$P/bin/runner
PY=/usr/bin/python3
CLUSTER=$WORK/test/cluster.sh
mount -t tmpfs -o size=1m runner-source-hidden "$ROOT"
unset RUNNER_JOBS_DIR RUNNER_ANALYSIS_DIR RUNNER_PREFIX RUNNER_COLUMNS_FILE
export RUNNER_PLUGIN_CACHE=$WORK/plugin-cache RUNNER_CALIBRATION_DIR=$WORK/calibration
cleanup() {
  local rc=$?
  "$CLUSTER" stop "$WORK/cluster" >/dev/null 2>&1 || true
  [[ -n ${KEEP:-} ]] || rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
cd "$WORK"
set +e

check "the source tree is out of reach ($ROOT is an empty tmpfs)" test -z "$(ls -A "$ROOT")"
check "the binary names neither the source nor the build tree" bash -c "! grep -qF '$ROOT' '$R'"

out=$("$R" --version)
check "runner --version names the moved prefix ($(tail -n 1 <<<"$out"))" grep -qxF "prefix: $P" <<<"$out"
check "runner list lists the kernels" bash -c "'$R' list | grep -q '^transpose '"

# A CPU config, twice (for compare), from a folder of the user's.
mkdir -p "$WORK/study"
cat >"$WORK/study/cpu.yaml" <<'EOF'
experiment: installed
kernel: transpose
repeat: {warmup: 1, min_samples: 3, max_samples: 5, max_seconds: 0.2}
baseline: {variant: omp_serial}
sweeps:
  - {variant: [omp_serial, omp_naive, omp_blocked], size: [256, 511], threads: [1, 2]}
EOF
"$R" calibrate --cpu-only --out "$RUNNER_CALIBRATION_DIR" >"$WORK/calibrate.log" 2>&1
for run in a b; do
  rc=$(run_rc "$WORK/run-$run.log" "$R" "$WORK/study/cpu.yaml" --out "$WORK/study/$run" -q)
  check "a CPU config runs from the moved prefix (run $run, exit $rc)" test "$rc" -eq 0
done
verified=$("$PY" -c 'import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
print(len(rs), all(r["status"] == "ok" and r["verified"] for r in rs))' "$WORK/study/a/records.jsonl")
check "its records are all ok and verified ($verified)" test "$verified" = "10 True"
check "the manifest names the moved prefix" \
  "$PY" -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["environment"]["runner_prefix"] != sys.argv[2])' \
  "$WORK/study/a/manifest.json" "$P"
rc=$(run_rc "$WORK/report.log" "$R" report "$WORK/study/a")
check "runner report works from the moved prefix (exit $rc)" test "$rc" -eq 0 -a -s "$WORK/study/a/report/report.html"
rc=$(run_rc "$WORK/compare.log" "$R" compare "$WORK/study/a" "$WORK/study/b" --out "$WORK/study/cmp.csv")
check "runner compare works from the moved prefix (exit $rc)" test "$rc" -le 1 -a -s "$WORK/study/cmp.csv"

# The tutorial's CPU plugin and the example family, from a folder outside the source tree.
cp -r "$P/share/runner/examples/own-kernel" "$WORK/lab"
cat >"$WORK/lab/cpu.yaml" <<'EOF'
experiment: own-cpu
kernel: transpose
plugins: [my_rows.cpp]
repeat: {warmup: 1, min_samples: 3, max_samples: 5, max_seconds: 0.2}
baseline: {variant: omp_serial}
sweeps:
  - {variant: [omp_serial, omp_blocked, my_rows], size: [512, 1023], threads: [1, 2]}
EOF
cat >"$WORK/lab/family.yaml" <<'EOF'
experiment: own-family
kernel: stencil2d
plugins: [stencil/stencil2d.cpp]
repeat: {warmup: 1, min_samples: 3, max_samples: 5, max_seconds: 0.2}
baseline: {variant: omp_serial}
sweeps:
  - {variant: [omp_serial, omp], size: [512, 1023], threads: [1, 2], dtype: [float, double]}
EOF
for study in cpu family; do
  rc=$(run_rc "$WORK/lab/$study.log" "$R" "$WORK/lab/$study.yaml" --out "$WORK/lab/$study" -q)
  check "the tutorial's $study plugin config runs from the moved prefix (exit $rc)" test "$rc" -eq 0
  summary=$("$PY" -c 'import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
own = [r for r in rs if r["plugin"]]
print(len(rs), len(own), all(r["status"] == "ok" and r["verified"] for r in rs),
      all(r["speedup"] is not None for r in own if not r["is_baseline"]))' "$WORK/lab/$study/records.jsonl")
  check "$study: every record ok and verified, the plugin's named and with a speedup ($summary)" \
    bash -c "[[ '$summary' == *' True True' ]] && [[ '$summary' != *' 0 '* ]]"
  rc=$(run_rc "$WORK/lab/$study-report.log" "$R" report "$WORK/lab/$study")
  check "$study: runner report (exit $rc)" test "$rc" -eq 0 -a -s "$WORK/lab/$study/report/report.md"
done
check "the report shows the plugin's variant" grep -q "my_rows" "$WORK/lab/cpu/report/report.md"

# The CMake route: find_package(runner) from the moved prefix.
mkdir -p "$WORK/cmake-lab"
cat >"$WORK/cmake-lab/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(lab LANGUAGES CXX)
find_package(runner 0.1 REQUIRED)
runner_add_plugin(lab_kernels SOURCES my_rows.cpp)
EOF
cp "$WORK/lab/my_rows.cpp" "$WORK/cmake-lab/"
rc=$(run_rc "$WORK/cmake-lab.log" bash -c "cmake -S '$WORK/cmake-lab' -B '$WORK/cmake-lab/build' -DCMAKE_PREFIX_PATH='$P' && cmake --build '$WORK/cmake-lab/build'")
check "a CMake project builds a plugin with find_package(runner) and runner_add_plugin (exit $rc)" \
  test "$rc" -eq 0 -a -f "$WORK/cmake-lab/build/lab_kernels.so"
out=$("$R" list --plugin "$WORK/cmake-lab/build/lab_kernels.so" 2>&1)
check "the runner loads the library CMake built" grep -q "my_rows .*\[plugin lab_kernels.so@" <<<"$out"

# What the build generated into the prefix: the man page and completions from the option
# definitions, the pandas reader from the column table.
check "man runner: the installed page renders and documents runner export" \
  bash -c "MANWIDTH=100 man -l '$P/share/man/man1/runner.1' 2>/dev/null | grep -q 'runner export results_dir'"
out=$(bash -c "source '$P/share/bash-completion/completions/runner'; COMP_WORDS=(runner columns --format ''); COMP_CWORD=3; _runner; echo \"\${COMPREPLY[*]}\"" 2>&1)
check "the installed bash completion completes runner columns --format ($out)" test "$out" = "md csv json"
check "the installed zsh completion is zsh" bash -c "! command -v zsh >/dev/null || zsh -n '$P/share/zsh/site-functions/_runner'"
out=$(cd "$WORK" && PYTHONPATH=$P/share/runner/python "$PY" -c 'import sys, runner_records
df = runner_records.read(sys.argv[1]); print(len(df), df.verified.dtype, df.m.dtype)' "$WORK/study/a" 2>&1)
check "the installed pandas reader reads a run with the table's dtypes ($out)" test "$out" = "10 boolean Int64"

# Module files, with the real Lmod.
LMOD_INIT=/usr/share/lmod/lmod/init/bash
if [[ -f $LMOD_INIT ]]; then
  for tree in modulefiles modulefiles-tcl; do
    out=$(bash -c "unset XDG_DATA_DIRS; source $LMOD_INIT; module use '$P/share/$tree'; module load runner && command -v runner && echo \"\$RUNNER_PREFIX\" && man -w runner && echo \"\$XDG_DATA_DIRS\"" 2>&1)
    check "module load runner ($tree, Lmod) puts the moved prefix on PATH" \
      bash -c "grep -qxF '$R' <<<'$out' && grep -qxF '$P' <<<'$out'"
    check "... its man page on MANPATH and its completions on XDG_DATA_DIRS, before /usr/share" \
      bash -c "grep -qxF '$P/share/man/man1/runner.1' <<<'$out' && grep -qxF '$P/share:/usr/local/share:/usr/share' <<<'$out'"
  done
else
  diag "Lmod not installed ($LMOD_INIT): the module files are not loaded here"
fi

# Slurm: a config with a plugin, submitted from the moved prefix.
if env_line=$("$CLUSTER" start "$WORK/cluster"); then
  ok "cluster starts"
  eval "$env_line"
  S=$WORK/slurm-run
  out=$("$R" submit "$WORK/lab/cpu.yaml" --tasks 2 --out "$S" --time 5 2>&1)
  C=$(collect_id "$out")
  check "runner submit from the moved prefix queues a shard array and a collect job" test -n "$C"
  check "submit copied the plugin's source and library into the run" \
    test -f "$S/plugins/0-my_rows/my_rows.cpp" -a -f "$S/plugins/0-my_rows/my_rows.so"
  # An edit after submitting changes nothing that runs.
  echo "#error edited after submit" >>"$WORK/lab/my_rows.cpp"
  wait_collect slurm "$C" 180
  summary=$("$PY" -c 'import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
print(len(rs), sum(1 for r in rs if r["status"] == "ok" and r["verified"]), sum(1 for r in rs if r["plugin"]))' "$S/records.jsonl" 2>&1)
  check "the collected run holds every point ok and verified, the plugin's included ($summary)" \
    test "$summary" = "10 10 4"
else
  not_ok "cluster starts"
fi

# A prefix missing one of its files says which, and where.
cp -a "$P" "$WORK/broken"
rm -rf "$WORK/broken/share/runner/jobs"
rc=$(run_rc "$WORK/broken.log" "$WORK/broken/bin/runner" submit "$WORK/study/cpu.yaml" --tasks 1 --out "$WORK/nowhere" --dry-run)
check "a prefix without share/runner/jobs: exit 2 ($rc)" test "$rc" -eq 2
check "... naming the file and where it looked" grep -qF "looked for $WORK/broken/share/runner/jobs" "$WORK/broken.log"
rm -rf "$WORK/broken/share/runner/analysis"
rc=$(run_rc "$WORK/broken-report.log" "$WORK/broken/bin/runner" report "$WORK/study/a")
check "a prefix without share/runner/analysis: runner report exits 2 ($rc), no traceback" \
  bash -c "test '$rc' -eq 2 && grep -qF '$WORK/broken/share/runner/analysis' '$WORK/broken-report.log' && ! grep -q Traceback '$WORK/broken-report.log'"

finish
