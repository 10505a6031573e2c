"""The report's tables, as data: each function returns a Table of headers and
rows of plain text cells (numbers already formatted, a dash for "none").  No
markup here: document.py renders a Table to Markdown and HTML.

    Provenance                  provenance_table
    Summary                     summary_table
    Noise                       noise_summary, noise_table
    Best variant per size       best_tables (one per kernel and backend)
    Best own implementation     best_tables(own_only=True)
    Points that did not succeed not_ok_table
    Missing points              missing_points, missing_table
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd

from above_ceiling import Footnotes, ceiling_notes
import results_io as rio


class Table(NamedTuple):
    """Column headers and rows of text cells, one list per row."""
    headers: list[str]
    rows: list[list[str]]


def provenance_table(prov: list[tuple[str, str]]) -> Table:
    """Where and when the run happened, from results_io.provenance()."""
    return Table(["item", "value"], [[k, v] for k, v in prov])


def summary_table(df: pd.DataFrame, planned: list[dict], missing: list[dict]) -> Table:
    """Number of points per status (the usual four first), how many ok points are noisy, then
    the missing and planned points when the manifest lists its points."""
    counts = df["status"].replace("", "(none)").value_counts()
    summary = [[s, str(int(counts[s]))] for s in ("ok", "failed", "skipped", "invalid")
               if s in counts] + [[s, str(int(c))] for s, c in counts.items()
                                  if s not in ("ok", "failed", "skipped", "invalid")]
    if "ok" in counts and rio.has_noise_column(df):
        summary.insert(1, ["ok but noisy (noise_warning)", str(int(df["noisy"].sum()))])
    if planned:
        summary.append(["missing (planned, no record)", str(len(missing))])
        summary.append(["planned in manifest", str(len(planned))])
    return Table(["status", "points"], summary or [["(no records)", "0"]])


def noise_summary(df: pd.DataFrame) -> str:
    """One paragraph on the run's noise: how many ok points did not settle, and the worst."""
    ok = df[df["ok"]]
    if not rio.has_noise_column(df):
        return ("Not recorded: the run predates noise warnings (no noise_warning column); the "
                "spread of every point is in records.csv (time_ms_stddev, time_ms_min/max).")
    noisy = ok[ok["noisy"]]
    if ok.empty:
        return "No point finished with status ok."
    if noisy.empty:
        return (f"None: all {len(ok)} ok points settled to their target spread "
                "(repeat.target_rsd).")
    worst = noisy.loc[noisy["rsd"].idxmax()] if np.isfinite(noisy["rsd"]).any() else noisy.iloc[0]
    return (f"{len(noisy)} of {len(ok)} ok points carry noise_warning: their samples did not "
            "settle to the config's repeat.target_rsd (worst: rsd "
            f"{rsd_text(worst['rsd'])}, {worst['point_key'] or worst['point_id']}). Their "
            "medians are less certain than their digits: the tables mark them with !, the "
            "figures with a red halo, and compare calls their changes noise. A quieter machine "
            "(no other jobs, exclusive node) or a longer repeat.max_seconds settles them.")


def noise_table(df: pd.DataFrame, limit: int = 40) -> tuple[Table, int]:
    """The noisy ok points, noisiest first (at most `limit`), and how many were left out."""
    noisy = df[df["ok"] & df["noisy"]].sort_values(["rsd", "point_id"], ascending=[False, True])
    rows = [[r.point_key or r.point_id, rsd_text(r.rsd), _cell(r.samples), r.stop_reason or "\u2014",
             r.noise_warning] for r in noisy.head(limit).itertuples()]
    return (Table(["point", "rsd", "samples", "stopped by", "noise_warning"], rows),
            max(0, len(noisy) - limit))


def best_tables(df: pd.DataFrame, info, own_only: bool = False) -> list[tuple[str, str, Table]]:
    """Best variant per dtype and size (lowest median time, ok only), one table per kernel and
    backend: [(heading, paragraph, table)].

    Reference-only variants (transpose `copy`) do not compete; with `own_only`, vendor
    libraries (cuBLAS, OpenBLAS, cuDNN) do not either, which shows how close the project's own
    kernels come to them.  "% of cuBLAS" (of the kernel's reference variant, named) compares
    the best variant's throughput with the reference's at the same size in the same run; "% of
    compute / bandwidth ceiling" is the record's pct_peak_flops / pct_peak_bw, against the
    machine's ceilings calibrated by `runner calibrate` (columns left out without them).
    """
    cand = df[df["ok"]]
    ref_only = [v in rio.REFERENCE_ONLY_VARIANTS.get(k, set())
                for k, v in zip(cand["kernel"], cand["variant"])]
    cand = cand[~np.array(ref_only, dtype=bool)]
    if own_only:
        cand = cand[~cand["variant"].isin(rio.VENDOR_VARIANTS)]
    best = rio.best_per(cand, ["kernel", "dtype", "backend", "size_full"])
    out = []
    if best.empty:
        return out
    best = best.sort_values(["kernel", "backend", "dtype", "kernel_size", "size_x", "size_full"])
    for (kernel, backend), g in best.groupby(["kernel", "backend"], sort=True):
        out.append(_best_table(df, g, kernel, backend, info))
    return out


def _best_table(df: pd.DataFrame, best: pd.DataFrame, kernel: str, backend: str, info):
    col, unit = rio.METRIC.get(kernel, (None, None))
    ref = rio.REFERENCE_VARIANTS.get(kernel, {}).get(backend)
    ref_name = rio.REFERENCE_NAMES.get(ref, ref)
    pct_cols = [(c, h) for c, h in (("pct_peak_flops", "% of compute ceiling"),
                                    ("pct_peak_bw", "% of bandwidth ceiling"))
                if np.isfinite(best[c]).any()]
    headers = ["dtype", "size", "best variant", "config", "median (ms)", "rsd"]
    headers += [unit] if col else []
    headers += [f"% of {ref_name}"] if col and ref else []
    headers += [h for _, h in pct_cols]
    rows = []
    # A percentage above 100 carries the number of its reason (above_ceiling.py), listed below.
    footnotes = Footnotes()
    reasons = ceiling_notes(best, info)
    for r in best.itertuples():
        row = [r.dtype or "\u2014", r.size_full or "\u2014", r.variant, r.config,
               fmt_num(r.time_ms_median), ("! " if r.noisy else "") + rsd_text(r.rsd)]
        if col:
            val = getattr(r, col)
            row.append(fmt_num(val))
            if ref:
                c = df[df["ok"] & (df["kernel"] == kernel) & (df["dtype"] == r.dtype)
                       & (df["backend"] == backend) & (df["variant"] == ref)
                       & (df["size_full"] == r.size_full) & np.isfinite(df[col])]
                cval = float(c[col].max()) if not c.empty else math.nan
                row.append(pct_text(100 * val / cval) if math.isfinite(val) and cval > 0
                           else "\u2014")
        row += [pct_text(getattr(r, c)) +
                (footnotes.mark(reasons[r.Index]) if getattr(r, c) > 100 else "")
                for c, _ in pct_cols]
        rows.append(row)
    if col and ref and all(row[len(headers) - len(pct_cols) - 1] == "\u2014" for row in rows):
        # the reference was not measured at these sizes: no column of dashes
        at = len(headers) - len(pct_cols) - 1
        headers.pop(at)
        rows = [row[:at] + row[at + 1:] for row in rows]
        ref = None
    where = "the GPU" if backend in rio.GPU_BACKENDS else "the CPU" if backend == "cpu" else backend
    device = info.device_line([backend]) if info is not None else ""
    heading = f"{kernel} on {where}" + (f" ({device})" if device else "")
    notes = []
    if col and ref:
        notes.append(f"% of {ref_name}: the best variant's {unit} over {ref_name}'s at the same "
                     "size in the same run (a reference, not a bound: it can exceed 100 %).")
    ceilings = info.ceilings if info is not None else None
    if pct_cols and ceilings and ceilings.has(backend):
        notes.append("Calibrated ceilings (runner calibrate): " + ceilings.describe(backend) +
                     ("; a CPU point is measured against its thread count's." if backend == "cpu"
                      else "; TF32 variants against TF32 cuBLAS."))
        state = ceilings.state(backend)
        if state:
            notes.append("Calibration: " + state.text() + ".")
    elif col:
        notes.append("No calibrated ceilings in manifest.json for these points (runner "
                     "calibrate measures them), so no % of ceiling.")
    if best["noisy"].any():
        notes.append("! marks a noisy point (noise_warning).")
    if footnotes.notes:
        notes.append(footnotes.text())
    return heading, " ".join(notes), Table(headers, rows)


def pct_text(p: float) -> str:
    """A percentage for a cell: whole from 10 up, two significant digits below (0.52 %)."""
    if p is None or not math.isfinite(p):
        return "\u2014"
    return (f"{p:.0f}" if abs(p) >= 10 else f"{p:.2g}") + " %"


def rsd_text(rsd: float) -> str:
    """A relative spread as a percentage: two significant digits below 100, whole above (as
    the runner writes noise warnings)."""
    if rsd is None or not math.isfinite(rsd):
        return "\u2014"
    p = 100 * rsd
    return (f"{p:.2g}" if p < 100 else f"{p:.0f}") + " %"


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
