#!/usr/bin/python3
"""runner compare: per-point timing ratio of two result directories, with a
noise-aware verdict and a regression gate.

Usage:  compare.py DIR_A DIR_B [--out FILE.csv] [--floor 0.02] [--k 3]
                   [--fail-above PCT] [--reference FILE] [--fail-on-noise]
        compare.py DIR --reference FILE [--out FILE.csv] [--fail-on-noise]

For every point_id with status ok in both runs: ratio = median_B / median_A
and a verdict (B relative to A):

    noise   the point did not settle in A or in B (noise_warning; for runs that
            predate the column: a relative spread above 5 %): its median moves
            with the machine's load, a change cannot be told from noise
    slower  ratio > 1 + tol
    faster  ratio < 1 / (1 + tol)
    same    otherwise

    sigma_X = min(time_ms_stddev_X, (median_X - min_X) / z(n_X))
    rsd_X   = sigma_X / median_X                  relative spread of one sample
    se_X    = 1.2533 * rsd_X / sqrt(n_X)          relative standard error of the
                                                  median (sqrt(pi/2) * sigma / sqrt(n))
    tol     = max(floor, k * sqrt(se_A^2 + se_B^2))

The gate (exit status 1 when it fails):

    --fail-above PCT   a point `slower` by more than PCT % fails
    --reference FILE   per-point references with tolerances (references.py), ReFrame's
                       way: [value, lower, upper]; a point outside its bounds fails
    --fail-on-noise    a `noise` point that would fail either check fails too (by
                       default it is listed as unjudged, and does not fail the gate)

A gate that could check no point fails too (B empty, every point of B failed,
B of another experiment): a regression gate that cannot fail would pass
anything.

Prints an aligned table and a summary to stdout and writes a CSV (default
DIR_B/compare.csv).  Exit status: 0 the gate passed (or none was asked for),
1 it failed, 2 usage error or unusable input (a missing directory, a folder
without readable records, a bad reference file: FILE:LINE:COLUMN).  docs/analysis.md explains the rule.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from statistics import NormalDist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from failures import exit_5_on_crash  # noqa: E402

# As the command (not when a test imports it), and before the imports below: a damaged install (a
# module that does not load) exits 5 too.
if __name__ == "__main__":
    exit_5_on_crash("runner compare")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import references as refs  # noqa: E402
import results_io as rio  # noqa: E402

MEDIAN_SE_FACTOR = math.sqrt(math.pi / 2)  # 1.2533: SE(median) / (sigma / sqrt(n))
# A run that predates noise_warning: a point is noisy above this relative spread (ten times the
# runner's default repeat.target_rsd).
LEGACY_NOISY_RSD = 0.05

CSV_COLUMNS = ["point_id", "point_key", "kernel", "variant", "backend", "dtype", "size",
               "config", "median_a_ms", "median_b_ms", "ratio", "rsd_a", "rsd_b", "samples_a",
               "samples_b", "noisy_a", "noisy_b", "tolerance", "verdict", "gate", "gate_detail"]
# Exit statuses (README's table): 1 = finished, and something failed (here: the gate).
EXIT_PASSED, EXIT_GATE_FAILED, EXIT_USAGE = 0, 1, 2


def expected_min_z(n: float) -> float:
    """Expected distance (in sigma) of the smallest of n normal samples below
    the median, by Blom's approximation of normal order statistics."""
    if not math.isfinite(n) or n < 3:
        return math.nan
    return -NormalDist().inv_cdf((1 - 0.375) / (n + 0.25))


def relative_se(median: pd.Series, stddev: pd.Series, samples: pd.Series,
                minimum: pd.Series | None = None):
    """Per record: (relative spread, effective samples, relative SE of the median).

    The spread is the smaller of the stddev and the lower-half estimate
    (median - min) / z(n), which slow outliers cannot inflate.
    """
    n = samples.where(np.isfinite(samples) & (samples >= 1), 1.0)
    sigma = stddev.where(np.isfinite(stddev), 0.0).clip(lower=0.0)
    if minimum is not None:
        z = n.map(expected_min_z).astype(float)  # float even for no records
        low = (median - minimum) / z
        usable = np.isfinite(low) & (low >= 0)
        sigma = sigma.where(~usable, np.minimum(sigma, low))
    rsd = sigma / median
    return rsd, n, MEDIAN_SE_FACTOR * rsd / np.sqrt(n)


def noisy_points(df: pd.DataFrame, rsd: pd.Series) -> pd.Series:
    """Whether each record's samples did not settle: its noise_warning, or for a run that
    predates the column its (outlier-robust) relative spread `rsd` above LEGACY_NOISY_RSD."""
    if "noisy" in df and rio.has_noise_column(df):
        return df["noisy"].astype(bool)
    return pd.Series(np.asarray(rsd > LEGACY_NOISY_RSD), index=df.index).fillna(False)


def compare(a: pd.DataFrame, b: pd.DataFrame, floor: float = 0.02, k: float = 3.0):
    """Return (table, stats) for two loaded record frames."""
    ok_a = _with_noise(a[a["ok"] & (a["point_id"] != "")])
    ok_b = _with_noise(b[b["ok"] & (b["point_id"] != "")])
    ids_a, ids_b = set(a["point_id"]) - {""}, set(b["point_id"]) - {""}
    stats = {
        "only_in_a": len(ids_a - ids_b),
        "only_in_b": len(ids_b - ids_a),
        "not_ok": len((ids_a & ids_b) - (set(ok_a["point_id"]) & set(ok_b["point_id"]))),
    }
    m = ok_a.merge(ok_b, on="point_id", suffixes=("_a", "_b"))
    rsd_a, n_a, se_a = m["spread_a"], m["n_a"], m["se_a"]
    rsd_b, n_b, se_b = m["spread_b"], m["n_b"], m["se_b"]
    ratio = m["time_ms_median_b"] / m["time_ms_median_a"]
    tol = np.maximum(floor, k * np.sqrt(se_a ** 2 + se_b ** 2))
    noisy = m["noisy_run_a"].astype(bool) | m["noisy_run_b"].astype(bool)
    verdict = np.where(noisy, "noise",
                       np.where(ratio > 1 + tol, "slower",
                                np.where(ratio < 1 / (1 + tol), "faster", "same")))
    table = pd.DataFrame({
        "point_id": m["point_id"],
        "point_key": m.get("point_key_b", pd.Series("", index=m.index)).fillna(""),
        "kernel": m["kernel_a"],
        "variant": m["variant_a"],
        "backend": m["backend_a"],
        "dtype": m["dtype_a"],
        "size": m["size_full_a"],
        "config": m["config_a"],
        "median_a_ms": m["time_ms_median_a"],
        "median_b_ms": m["time_ms_median_b"],
        "ratio": ratio,
        "rsd_a": rsd_a,
        "rsd_b": rsd_b,
        "samples_a": n_a,
        "samples_b": n_b,
        "noisy_a": m["noisy_run_a"].astype(bool),
        "noisy_b": m["noisy_run_b"].astype(bool),
        "tolerance": tol,
        "verdict": verdict,
        "gate": "",
        "gate_detail": "",
    }, columns=CSV_COLUMNS)
    table = table.assign(_x=m["size_x_a"]).sort_values(
        ["kernel", "dtype", "backend", "variant", "_x", "size", "config"]).drop(columns="_x")
    return table.reset_index(drop=True), stats


def _with_noise(ok: pd.DataFrame) -> pd.DataFrame:
    """Ok records with their spread (spread, n, se: relative_se) and noisy_run."""
    spread, n, se = relative_se(ok["time_ms_median"], ok["time_ms_stddev"], ok["samples"],
                                ok.get("time_ms_min"))
    ok = ok.assign(spread=spread, n=n, se=se)
    return ok.assign(noisy_run=noisy_points(ok, spread))


def single_run_table(b: pd.DataFrame) -> pd.DataFrame:
    """The table of a one-run check (--reference without run A): B's ok points."""
    ok = _with_noise(b[b["ok"] & (b["point_id"] != "")]).sort_values(
        ["kernel", "dtype", "backend", "variant", "size_x", "size_full", "config"])
    return pd.DataFrame({
        "point_id": ok["point_id"], "point_key": ok["point_key"], "kernel": ok["kernel"],
        "variant": ok["variant"], "backend": ok["backend"], "dtype": ok["dtype"],
        "size": ok["size_full"], "config": ok["config"], "median_a_ms": np.nan,
        "median_b_ms": ok["time_ms_median"], "ratio": np.nan, "rsd_a": np.nan,
        "rsd_b": ok["spread"], "samples_a": np.nan, "samples_b": ok["samples"],
        "noisy_a": False, "noisy_b": ok["noisy_run"].astype(bool), "tolerance": np.nan,
        "verdict": np.where(ok["noisy_run"], "noise", ""), "gate": "", "gate_detail": "",
    }, columns=CSV_COLUMNS).reset_index(drop=True)


# --------------------------------------------------------------------------
# The gate
# --------------------------------------------------------------------------

def apply_gate(table: pd.DataFrame, a: pd.DataFrame | None, b: pd.DataFrame,
               fail_above: float | None, references: list, fail_on_noise: bool):
    """Fill the table's gate columns; return (failures, unjudged, unmatched reference
    patterns). A check of a noisy point that would fail is `noise` (a failure with
    fail_on_noise), one that holds is `pass`."""
    findings: dict[str, list[tuple[str, str]]] = {}

    def note(pid, ok, noisy, detail):
        result = "pass" if ok else ("FAIL" if not noisy or fail_on_noise else "noise")
        findings.setdefault(pid, []).append((result, detail))

    if fail_above is not None:
        limit = 1 + fail_above / 100
        for r in table.itertuples():
            if not math.isfinite(r.ratio):
                continue
            noisy = r.verdict == "noise"
            # beyond the threshold and beyond noise: a `slower` verdict (a noisy point cannot
            # be judged, and is reported as such)
            failed = r.ratio > limit and (r.verdict == "slower" or noisy)
            note(r.point_id, not failed, noisy,
                 f"B/A {r.ratio:.3f} > {limit:.3f} (--fail-above {fail_above:g})" if failed
                 else f"B/A {r.ratio:.3f} within --fail-above {fail_above:g}")
    by_id_b = b.set_index("point_id")
    by_id_a = a.set_index("point_id") if a is not None else None
    unmatched = []
    for ref in references:
        hits = 0
        for r in table.itertuples():
            if not ref.matches(r.point_key):
                continue
            hits += 1
            row_b = by_id_b.loc[r.point_id]
            for bound in ref.bounds:
                ok, detail = _check_bound(bound, row_b, by_id_a, r.point_id, ref)
                if ok is None:
                    findings.setdefault(r.point_id, []).append(("FAIL", detail))
                    continue
                note(r.point_id, ok, bool(r.noisy_b or r.noisy_a), detail)
        if hits == 0:
            unmatched.append(ref)
    order = {"FAIL": 0, "noise": 1, "pass": 2}
    for i, pid in enumerate(table["point_id"]):
        if pid in findings:
            worst = min(findings[pid], key=lambda f: order[f[0]])
            table.at[i, "gate"] = worst[0]
            table.at[i, "gate_detail"] = "; ".join(d for res, d in findings[pid]
                                                   if res == worst[0])
    failures = table[table["gate"] == "FAIL"]
    unjudged = table[table["gate"] == "noise"]
    return failures, unjudged, unmatched


def _check_bound(bound, row_b, by_id_a, pid: str, ref):
    """(holds?, detail) of one bound on one point; holds is None when it cannot be checked
    (no value in B, or no reference value: null without run A), which fails the gate."""
    value = row_b[bound.metric]
    if not (isinstance(value, float) and math.isfinite(value)):
        return None, f"{bound.name}: no value in the run ({ref.where})"
    reference = bound.value
    if reference is None:
        if by_id_a is None or pid not in by_id_a.index:
            return None, f"{bound.name}: reference null needs run A ({ref.where})"
        reference = float(by_id_a.loc[pid][bound.metric])
        if not math.isfinite(reference):
            return None, f"{bound.name}: no value in run A ({ref.where})"
    lo = reference * (1 + bound.lower) if bound.lower is not None else -math.inf
    hi = reference * (1 + bound.upper) if bound.upper is not None else math.inf
    holds = lo <= value <= hi
    rng = (f"[{_num(lo)}, {_num(hi)}]").replace("-inf", "-\u221e").replace("inf", "\u221e")
    return holds, f"{bound.name} {_num(value)} {'in' if holds else 'outside'} {rng} ({ref.where})"


def _num(v: float) -> str:
    return f"{v:.4g}" if math.isfinite(v) else ("inf" if v > 0 else "-inf")


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------

def format_table(table: pd.DataFrame, with_gate: bool, single: bool = False) -> str:
    """Aligned plain-text table (numbers right-aligned)."""
    shown = {
        "point_id": table["point_id"],
        "kernel": table["kernel"],
        "variant": table["variant"],
        "dtype": table["dtype"],
        "size": table["size"],
        "config": table["config"],
    }
    if not single:
        shown["A ms"] = table["median_a_ms"].map(lambda v: f"{v:.4g}")
    shown["B ms"] = table["median_b_ms"].map(lambda v: f"{v:.4g}")
    if not single:
        shown["B/A"] = table["ratio"].map(lambda v: f"{v:.3f}")
        shown["tol"] = table["tolerance"].map(lambda v: f"\u00b1{100 * v:.1f}%")
    shown["verdict"] = table["verdict"]
    if with_gate:
        shown["gate"] = table["gate"]
    shown = pd.DataFrame(shown)
    numeric = {"A ms", "B ms", "B/A", "tol"}
    widths = {c: max(len(c), *(len(str(v)) for v in shown[c])) if len(shown) else len(c)
              for c in shown.columns}

    def line(values):
        return "  ".join(str(v).rjust(widths[c]) if c in numeric else str(v).ljust(widths[c])
                         for c, v in zip(shown.columns, values)).rstrip()

    out = [line(shown.columns), line("-" * widths[c] for c in shown.columns)]
    out += [line(row) for row in shown.itertuples(index=False)]
    return "\n".join(out)


def _points(n: int) -> str:
    return f"{n} point" + ("" if n == 1 else "s")


def _list(rows: pd.DataFrame, what: str, limit: int = 20) -> None:
    """The points of a gate outcome, one a line, the first `limit` of them."""
    for r in rows.head(limit).itertuples():
        print(f"  {what:<6} {r.point_key or r.point_id}: {r.gate_detail}")
    if len(rows) > limit:
        print(f"  ... and {len(rows) - limit} more (the gate column of the CSV)")


def _why_nothing_checked(a: pd.DataFrame | None, b: pd.DataFrame) -> str:
    """What the runs hold, when a gate found no point to check."""
    def held(df: pd.DataFrame, name: str) -> str:
        experiments = sorted(e for e in df["experiment"].unique() if e)
        return (f"{name} holds {len(df)} record(s), {int(df['ok'].sum())} ok" +
                (f" (experiment {', '.join(experiments)})" if experiments else ""))
    if a is None:
        return held(b, "the run") + ", and no reference matched a point with status ok"
    both = set(a.loc[a["ok"], "point_id"]) & set(b.loc[b["ok"], "point_id"])
    return (f"{held(a, 'A')}; {held(b, 'B')}; {len(both)} point(s) ok in both")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="runner compare",
        description="Compare the timings of two runner result directories (A, then B), or "
                    "check one against per-point references; exit 1 when the gate fails.")
    ap.add_argument("dirs", nargs="+", metavar="DIR",
                    help="DIR_A DIR_B (B judged against A), or one DIR with --reference")
    ap.add_argument("--out", help="CSV to write (default DIR_B/compare.csv)")
    ap.add_argument("--floor", type=float, default=0.02,
                    help="smallest relative change reported as a difference (default 0.02)")
    ap.add_argument("--k", type=float, default=3.0,
                    help="standard errors a change must exceed (default 3)")
    ap.add_argument("--fail-above", type=float, metavar="PCT",
                    help="fail (exit 1) when a point is slower than A by more than PCT %% and "
                         "beyond noise")
    ap.add_argument("--reference", metavar="FILE",
                    help="per-point references with tolerances (YAML, ReFrame style): fail "
                         "(exit 1) when a point is outside its bounds")
    ap.add_argument("--fail-on-noise", action="store_true",
                    help="a noisy point that would fail a check fails the gate too")
    args = ap.parse_args(argv)
    if len(args.dirs) > 2:
        ap.error("at most two directories: DIR_A DIR_B")
    if len(args.dirs) == 1 and not args.reference:
        ap.error("one directory needs --reference FILE (or give DIR_A DIR_B)")
    if len(args.dirs) == 1 and args.fail_above is not None:
        ap.error("--fail-above compares with run A: give DIR_A DIR_B")
    if args.fail_above is not None and not (args.fail_above >= 0):
        ap.error("--fail-above takes a percentage >= 0")
    for d in args.dirs:
        if not os.path.isdir(d):
            print(f"compare: {d}: no such directory", file=sys.stderr)
            return EXIT_USAGE
    references = []
    if args.reference:
        try:
            references = refs.load_references(args.reference)
        except refs.ReferenceError as exc:
            print(f"compare: {exc}", file=sys.stderr)
            return EXIT_USAGE

    single = len(args.dirs) == 1
    dir_b = args.dirs[-1]
    try:
        b = rio.load_records(dir_b)
        a = None if single else rio.load_records(args.dirs[0])
    except rio.UnusableResults as exc:
        print(f"compare: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if single:
        table, stats = single_run_table(b), None
    else:
        table, stats = compare(a, b, floor=args.floor, k=args.k)
    gated = args.fail_above is not None or bool(references)
    failures, unjudged, unmatched = apply_gate(table, a, b, args.fail_above, references,
                                               args.fail_on_noise)

    out = args.out or os.path.join(dir_b, "compare.csv")
    table.to_csv(out, index=False, float_format="%.6g")

    if not single:
        print(f"A: {os.path.abspath(args.dirs[0])}")
    print(f"B: {os.path.abspath(dir_b)}")
    if not single:
        print("ratio = median_B / median_A; tol = max(floor, k * combined relative SE of the "
              "medians); noise = the point did not settle in A or B (noise_warning)")
    print()
    if len(table):
        print(format_table(table, gated, single))
    else:
        print("(no point_id with status ok in both runs)" if not single
              else "(no point with status ok)")
    print()
    counts = table["verdict"].value_counts()
    if not single:
        print("compared: {}  same: {}  faster: {}  slower: {}  noise: {}".format(
            len(table), counts.get("same", 0), counts.get("faster", 0), counts.get("slower", 0),
            counts.get("noise", 0)))
        print("not compared: only in A: {only_in_a}  only in B: {only_in_b}  "
              "not ok in A or B: {not_ok}".format(**stats))
        if counts.get("noise", 0):
            print(f"noise: {counts['noise']} points did not settle in A or B (noise_warning): "
                  "their changes are not judged; rerun them on a quiet machine")
    for ref in unmatched:
        print(f"warning: {ref.where}: pattern '{ref.pattern}' matches no compared point",
              file=sys.stderr)
    code = EXIT_PASSED
    if gated:
        if len(unjudged):
            print(f"gate: {_points(len(unjudged))} would fail it but did not settle, so they "
                  "are not judged (--fail-on-noise fails them):")
            _list(unjudged, "noise")
        checks = int((table["gate"] != "").sum())
        if len(failures):
            print(f"gate: FAILED, {_points(len(failures))}:")
            _list(failures, "FAIL")
            code = EXIT_GATE_FAILED
        elif checks == 0:
            # A gate that checked nothing cannot pass: B empty, every point of B failed, or B is
            # another experiment (it used to print "passed (0 points checked)" and exit 0).
            print(f"gate: FAILED, nothing was checked: {_why_nothing_checked(a, b)}")
            code = EXIT_GATE_FAILED
        else:
            print(f"gate: passed ({_points(checks)} checked)")
    print(f"csv: {out}")
    return code


if __name__ == "__main__":
    import signal
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet exit when piped into head
    sys.exit(main())
