#!/usr/bin/python3
"""runner compare: per-point timing ratio of two result directories.

Usage:  compare.py DIR_A DIR_B [--out FILE.csv] [--floor 0.02] [--k 3]

For every point_id with status ok in both runs: ratio = median_B / median_A
and a verdict from the recorded spreads (B relative to A):

    sigma_X = min(time_ms_stddev_X, (median_X - min_X) / z(n_X))
    rsd_X   = sigma_X / median_X                  relative spread of one sample
    se_X    = 1.2533 * rsd_X / sqrt(n_X)          relative standard error of the
                                                  median (sqrt(pi/2) * sigma / sqrt(n))
    tol     = max(floor, k * sqrt(se_A^2 + se_B^2))
    verdict = "slower" if ratio > 1 + tol,
              "faster" if ratio < 1 / (1 + tol),
              "same"   otherwise.

Timing noise is one-sided: samples are delayed (preemption, page faults), never
sped up, so one slow outlier can blow the stddev up to many times the median
while the median does not move.  The lower half of the samples is immune to
that: z(n) is the expected distance, in standard deviations, of the smallest of
n normal samples below their median (Blom's approximation), so
(median - min) / z(n) is a second estimate of sigma, and the smaller one is
used.  It needs n >= 3 and a recorded time_ms_min; otherwise the stddev alone.

floor (default 2 %) covers run-to-run drift that the within-run spread cannot
see (clocks, thermals, another job on the node); k (default 3) keeps the false
alarm rate low even though timing samples are neither normal nor independent.
A missing stddev counts as 0 (so the floor decides); missing or < 1 samples
count as 1 (so the full per-sample spread is used, the conservative choice).

Prints an aligned table and a summary to stdout and writes a CSV (default
DIR_B/compare.csv).  Exits 0 whatever the verdicts; 2 on unusable input.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from statistics import NormalDist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import results_io as rio  # noqa: E402

MEDIAN_SE_FACTOR = math.sqrt(math.pi / 2)  # 1.2533: SE(median) / (sigma / sqrt(n))

CSV_COLUMNS = ["point_id", "kernel", "variant", "backend", "dtype", "size", "config",
               "median_a_ms", "median_b_ms", "ratio", "rsd_a", "rsd_b", "samples_a",
               "samples_b", "tolerance", "verdict"]


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
        z = n.map(expected_min_z)
        low = (median - minimum) / z
        usable = np.isfinite(low) & (low >= 0)
        sigma = sigma.where(~usable, np.minimum(sigma, low))
    rsd = sigma / median
    return rsd, n, MEDIAN_SE_FACTOR * rsd / np.sqrt(n)


def compare(a: pd.DataFrame, b: pd.DataFrame, floor: float = 0.02, k: float = 3.0):
    """Return (table, stats) for two loaded record frames."""
    ok_a = a[a["ok"] & (a["point_id"] != "")]
    ok_b = b[b["ok"] & (b["point_id"] != "")]
    ids_a, ids_b = set(a["point_id"]) - {""}, set(b["point_id"]) - {""}
    stats = {
        "only_in_a": len(ids_a - ids_b),
        "only_in_b": len(ids_b - ids_a),
        "not_ok": len((ids_a & ids_b) - (set(ok_a["point_id"]) & set(ok_b["point_id"]))),
    }
    m = ok_a.merge(ok_b, on="point_id", suffixes=("_a", "_b"))
    rsd_a, n_a, se_a = relative_se(m["time_ms_median_a"], m["time_ms_stddev_a"],
                                   m["samples_a"], m.get("time_ms_min_a"))
    rsd_b, n_b, se_b = relative_se(m["time_ms_median_b"], m["time_ms_stddev_b"],
                                   m["samples_b"], m.get("time_ms_min_b"))
    ratio = m["time_ms_median_b"] / m["time_ms_median_a"]
    tol = np.maximum(floor, k * np.sqrt(se_a ** 2 + se_b ** 2))
    verdict = np.where(ratio > 1 + tol, "slower", np.where(ratio < 1 / (1 + tol), "faster", "same"))
    table = pd.DataFrame({
        "point_id": m["point_id"],
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
        "tolerance": tol,
        "verdict": verdict,
    }, columns=CSV_COLUMNS)
    table = table.assign(_x=m["size_x_a"]).sort_values(
        ["kernel", "dtype", "backend", "variant", "_x", "size", "config"]).drop(columns="_x")
    return table.reset_index(drop=True), stats


def format_table(table: pd.DataFrame) -> str:
    """Aligned plain-text table (numbers right-aligned)."""
    shown = pd.DataFrame({
        "point_id": table["point_id"],
        "kernel": table["kernel"],
        "variant": table["variant"],
        "dtype": table["dtype"],
        "size": table["size"],
        "config": table["config"],
        "A ms": table["median_a_ms"].map(lambda v: f"{v:.4g}"),
        "B ms": table["median_b_ms"].map(lambda v: f"{v:.4g}"),
        "B/A": table["ratio"].map(lambda v: f"{v:.3f}"),
        "tol": table["tolerance"].map(lambda v: f"\u00b1{100 * v:.1f}%"),
        "verdict": table["verdict"],
    })
    numeric = {"A ms", "B ms", "B/A", "tol"}
    widths = {c: max(len(c), *(len(str(v)) for v in shown[c])) if len(shown) else len(c)
              for c in shown.columns}

    def line(values):
        return "  ".join(str(v).rjust(widths[c]) if c in numeric else str(v).ljust(widths[c])
                         for c, v in zip(shown.columns, values)).rstrip()

    out = [line(shown.columns), line("-" * widths[c] for c in shown.columns)]
    out += [line(row) for row in shown.itertuples(index=False)]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Compare the timings of two runner result directories.")
    ap.add_argument("dir_a", help="baseline results directory (A)")
    ap.add_argument("dir_b", help="results directory to judge against A (B)")
    ap.add_argument("--out", help="CSV to write (default DIR_B/compare.csv)")
    ap.add_argument("--floor", type=float, default=0.02,
                    help="smallest relative change reported as a difference (default 0.02)")
    ap.add_argument("--k", type=float, default=3.0,
                    help="standard errors a change must exceed (default 3)")
    args = ap.parse_args(argv)
    for d in (args.dir_a, args.dir_b):
        if not os.path.isdir(d):
            print(f"compare: {d}: no such directory", file=sys.stderr)
            return 2
    a, b = rio.load_records(args.dir_a), rio.load_records(args.dir_b)
    table, stats = compare(a, b, floor=args.floor, k=args.k)

    out = args.out or os.path.join(args.dir_b, "compare.csv")
    table.to_csv(out, index=False, float_format="%.6g")

    print(f"A: {os.path.abspath(args.dir_a)}")
    print(f"B: {os.path.abspath(args.dir_b)}")
    print("ratio = median_B / median_A; tol = max(floor, k * combined relative SE of the medians)")
    print()
    if len(table):
        print(format_table(table))
    else:
        print("(no point_id with status ok in both runs)")
    print()
    counts = table["verdict"].value_counts()
    print("compared: {}  same: {}  faster: {}  slower: {}".format(
        len(table), counts.get("same", 0), counts.get("faster", 0), counts.get("slower", 0)))
    print("not compared: only in A: {only_in_a}  only in B: {only_in_b}  "
          "not ok in A or B: {not_ok}".format(**stats))
    print(f"csv: {out}")
    return 0


if __name__ == "__main__":
    import signal
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet exit when piped into head
    sys.exit(main())
