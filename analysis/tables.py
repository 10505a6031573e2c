"""The report's tables, as data: each function returns a Table of headers and
rows of plain text cells (numbers already formatted, a dash for "none").  No
markup here: document.py renders a Table to Markdown and HTML.

    Provenance                  provenance_table
    Summary                     summary_table
    Best variant per size       best_table
    Best own implementation     best_table(own_only=True)
    Points that did not succeed not_ok_table
    Missing points              missing_points, missing_table
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd

import results_io as rio


class Table(NamedTuple):
    """Column headers and rows of text cells, one list per row."""
    headers: list[str]
    rows: list[list[str]]


def provenance_table(prov: list[tuple[str, str]]) -> Table:
    """Where and when the run happened, from results_io.provenance()."""
    return Table(["item", "value"], [[k, v] for k, v in prov])


def summary_table(df: pd.DataFrame, planned: list[dict], missing: list[dict]) -> Table:
    """Number of points per status (the usual four first), then the missing
    and planned points when the manifest lists its points."""
    counts = df["status"].replace("", "(none)").value_counts()
    summary = [[s, str(int(counts[s]))] for s in ("ok", "failed", "skipped", "invalid")
               if s in counts] + [[s, str(int(c))] for s, c in counts.items()
                                  if s not in ("ok", "failed", "skipped", "invalid")]
    if planned:
        summary.append(["missing (planned, no record)", str(len(missing))])
        summary.append(["planned in manifest", str(len(planned))])
    return Table(["status", "points"], summary or [["(no records)", "0"]])


def best_table(df: pd.DataFrame, own_only: bool = False) -> Table:
    """Best variant per kernel, dtype, backend and size (lowest median time, ok only).

    Reference-only variants (transpose `copy`) do not compete; with
    `own_only`, vendor libraries (cuBLAS, OpenBLAS, cuDNN) do not either, which
    shows how close the project's own kernels come to them.  The % of ceiling
    compares the best variant's throughput with the ceiling variant of the
    same backend at the same size.
    """
    headers = ["kernel", "dtype", "backend", "size", "best variant", "config",
               "median (ms)", "throughput", "ceiling", "% of ceiling"]
    cand = df[df["ok"]].copy()
    ref = cand.apply(lambda r: r["variant"] in rio.REFERENCE_ONLY_VARIANTS.get(r["kernel"], set()),
                     axis=1) if len(cand) else pd.Series(dtype=bool)
    cand = cand[~ref.astype(bool)] if len(cand) else cand
    if own_only:
        cand = cand[~cand["variant"].isin(rio.VENDOR_VARIANTS)]
    best = rio.best_per(cand, ["kernel", "dtype", "backend", "size_full"])
    if best.empty:
        return Table(headers, [])
    best = best.sort_values(["kernel", "dtype", "backend", "kernel_size", "size_x", "size_full"])
    rows = []
    for r in best.itertuples():
        col, unit = rio.METRIC.get(r.kernel, (None, None))
        if col is None:
            col = "gflops" if math.isfinite(r.gflops) else ("gbps" if math.isfinite(r.gbps) else None)
            unit = rio.METRIC_UNIT.get(col, "")
        val = getattr(r, col) if col else math.nan
        ceil_txt, pct_txt = "\u2014", "\u2014"
        cvar = rio.CEILING_VARIANTS.get(r.kernel, {}).get(r.backend)
        if col and cvar:
            c = df[df["ok"] & (df["kernel"] == r.kernel) & (df["dtype"] == r.dtype)
                   & (df["backend"] == r.backend) & (df["variant"] == cvar)
                   & (df["size_full"] == r.size_full) & np.isfinite(df[col])]
            if not c.empty:
                cval = float(c[col].max())
                ceil_txt = f"{cvar} {fmt_num(cval, unit)}"
                if math.isfinite(val) and cval > 0:
                    pct_txt = f"{100 * val / cval:.0f} %"
        rows.append([r.kernel, r.dtype or "n/a", r.backend, r.size_full or "n/a", r.variant,
                     r.config, fmt_num(r.time_ms_median),
                     fmt_num(val, unit) if col else "\u2014", ceil_txt, pct_txt])
    return Table(headers, rows)


def not_ok_table(df: pd.DataFrame) -> Table:
    """Every recorded point whose status is not ok (failed, skipped, invalid),
    with the runner's message saying why."""
    headers = ["point_id", "kernel", "variant", "dtype", "size", "config", "status", "message"]
    bad = df[df["status"] != "ok"].sort_values(["status", "kernel", "variant", "point_id"])
    rows = [[r.point_id or "\u2014", r.kernel, r.variant, r.dtype or "\u2014",
             r.size_full or "\u2014", r.config,
             r.status or "(none)", r.message or "\u2014"] for r in bad.itertuples()]
    return Table(headers, rows)


def missing_points(df: pd.DataFrame, planned: list[dict]) -> list[dict]:
    """The planned points (manifest.json) that have no record: the run was
    interrupted or is still going."""
    have = set(df["point_id"])
    return [p for p in planned if str(p["point_id"]) not in have]


def missing_table(missing: list[dict]) -> Table:
    """The missing points, with whatever describes them in the manifest."""
    # Show the point's own descriptive fields when the manifest has them.
    extra = [k for k in ("kernel", "variant", "backend", "dtype", "m", "n", "k",
                         "kernel_size", "block_x", "block_y", "threads")
             if any(k in p for p in missing)]
    headers = ["point_id"] + extra
    rows = [[str(p["point_id"])] + [_cell(p.get(k)) for k in extra] for p in missing]
    return Table(headers, rows)


def fmt_num(v: float, unit: str = "") -> str:
    """A number for a cell, then its unit: from 1000 up whole with thousands
    separators, from 10 up with one decimal, below with three significant
    digits; a dash when there is no value."""
    if v is None or not math.isfinite(v):
        return "\u2014"
    if abs(v) >= 1000:
        s = f"{v:,.0f}"
    elif abs(v) >= 10:
        s = f"{v:.1f}"
    else:
        s = f"{v:.3g}"
    return f"{s} {unit}".strip()


def _cell(v) -> str:
    """A manifest field as a cell: a dash when absent, whole floats without
    ".0" (a JSON writer may have written 1024 as 1024.0)."""
    if v is None or v == "":
        return "\u2014"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
