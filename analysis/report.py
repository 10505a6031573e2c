#!/usr/bin/python3
"""runner report: figures and tables from a runner results directory.

Usage:  report.py RESULTS_DIR [--out OUT_DIR]

Reads RESULTS_DIR/records.csv (or records.jsonl) and manifest.json and writes
OUT_DIR (default RESULTS_DIR/report/):

* PNG figures, per kernel and dtype:
    time_<kernel>_<dtype>.png        median time vs problem size, per variant
    throughput_<kernel>_<dtype>.png  GFLOP/s or GB/s vs size, with the run's ceiling
    scaling_<kernel>_<dtype>.png     OpenMP speedup and parallel efficiency
    heatmap_<kernel>_<dtype>_<variant>.png  time over block shape x size (CUDA)
    roofline_<kernel>_<dtype>.png    achieved GFLOP/s vs arithmetic intensity
* report.md   tables (provenance, best variant per size, failures, missing
              points) and the figures by reference,
* report.html the same, self-contained (figures inline as data URIs).

docs/analysis.md explains each figure.  Exits 0 on success, 2 when
RESULTS_DIR does not exist.
"""

from __future__ import annotations

import argparse
import base64
import html
import math
import os
import sys

# report.py is exec'd by path (runner report DIR), so the sibling module is
# found relative to this file, not via the caller's working directory.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import matplotlib  # noqa: E402

matplotlib.use("Agg")  # headless: cluster nodes and CI have no display
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import LogNorm  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402
from matplotlib.ticker import (FixedLocator, FuncFormatter, LogLocator,  # noqa: E402
                               NullFormatter, NullLocator)
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import results_io as rio  # noqa: E402
from results_io import TIMES  # noqa: E402

DPI = 120
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "*", "h", "p"]
BACKEND_STYLE = {"cpu": "-", "cuda": "--"}
KS_STYLES = ["-", "--", ":", "-."]


# --------------------------------------------------------------------------
# Small plotting helpers
# --------------------------------------------------------------------------

def variant_styles(kernel: str, variants) -> dict:
    """Stable colour and marker per variant of a kernel (same in every figure)."""
    order = rio.variant_order(kernel, list(variants) + rio.KNOWN_VARIANTS.get(kernel, []))
    cmap = plt.get_cmap("tab20" if len(order) > 10 else "tab10")
    return {v: (cmap(i % cmap.N), MARKERS[i % len(MARKERS)]) for i, v in enumerate(order)}


def place_legend(ax, handles=None, labels=None, title=None, anchor=(1.02, 1.0)):
    """Legend outside the axes on the right; smaller font for many entries."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    n = len(handles)
    font = "small" if n <= 8 else "x-small"
    return ax.legend(handles, labels, title=title, loc="upper left",
                     bbox_to_anchor=anchor, borderaxespad=0.0, fontsize=font,
                     title_fontsize="small", ncol=1 if n <= 18 else 2,
                     frameon=False)


def keep_legend(ax, leg) -> None:
    """Keep `leg` when the axes gets another legend.

    add_artist() clips the legend to the axes, which makes savefig's tight
    bounding box ignore it and crop away a legend placed outside the axes;
    unclipping keeps it inside the saved image.
    """
    if leg is not None:
        ax.add_artist(leg)
        leg.set_clip_on(False)


def plain_number(v: float, _pos=None) -> str:
    """Tick label without scientific notation in the usual range (0.001 .. 1e6)."""
    if v <= 0 or not math.isfinite(v):
        return ""
    if 1e-3 <= v < 1e6:
        if v >= 1000:
            return f"{v:,.0f}"
        return f"{v:.4g}"
    e = math.floor(math.log10(v) + 1e-9)
    mant = v / 10 ** e
    return f"$10^{{{e}}}$" if abs(mant - 1) < 1e-6 else f"${mant:.3g}\\times10^{{{e}}}$"


def readable_log_axis(axis, lo: float, hi: float) -> None:
    """Plain-number labels on a log axis, with enough labelled ticks to read
    values off even when the data spans less than a decade (matplotlib would
    then label a single tick, or none)."""
    decades = math.log10(hi / lo) if lo > 0 and hi > lo else 0.0
    if decades < 0.5:
        subs = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0)
    elif decades < 1.3:
        subs = (1.0, 1.5, 2.0, 3.0, 5.0, 7.0)
    elif decades < 2.5:
        subs = (1.0, 2.0, 5.0)
    else:
        subs = (1.0,)
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(plain_number))
    axis.set_minor_locator(LogLocator(base=10, subs=np.arange(2, 10)))
    axis.set_minor_formatter(NullFormatter())


def readable_log_y(ax) -> None:
    lo, hi = ax.get_ylim()  # triggers autoscaling over what is plotted
    readable_log_axis(ax.yaxis, lo, hi)


def series_linestyle(g: pd.DataFrame, pts: pd.DataFrame) -> str:
    """Line style of a series: tells kernel sizes apart when a figure holds
    several (conv2d K=3 and K=5), else backends (cpu solid, cuda dashed)."""
    ks = sorted(pts["kernel_size"].dropna().unique())
    k = g["kernel_size"].iloc[0]
    if len(ks) > 1 and k in ks:
        return KS_STYLES[ks.index(k) % len(KS_STYLES)]
    return BACKEND_STYLE.get(g["backend"].iloc[0], "-")


def marker_face(g: pd.DataFrame, pts: pd.DataFrame, colour, scatter=False):
    """Marker fill of a series.

    Line plots: hollow CPU markers when the line style is taken by kernel size
    and both backends share the figure.  Scatter plots (no lines): hollow
    markers for every other kernel size, so K=3 and K=5 differ.
    """
    ks = sorted(pts["kernel_size"].dropna().unique())
    if scatter:
        k = g["kernel_size"].iloc[0]
        return "white" if len(ks) > 1 and k in ks and ks.index(k) % 2 else colour
    if len(ks) > 1 and pts["backend"].nunique() > 1 and g["backend"].iloc[0] == "cpu":
        return "white"
    return colour


def set_size_ticks(ax, pts: pd.DataFrame) -> None:
    """Put x ticks exactly at the measured sizes, labelled with their dims."""
    ticks = pts.drop_duplicates("size_x").sort_values("size_x")
    # Sizes closer than 15 % on the log axis (511 and 512, 1000 and 1024) would print their
    # labels on top of each other: keep a tick at each but label only the first of a cluster.
    labels, last = [], None
    for x, label in zip(ticks["size_x"], ticks["size_label"]):
        close = last is not None and x / last < 1.15
        labels.append("" if close else label)
        if not close:
            last = x
    ax.xaxis.set_major_locator(FixedLocator(ticks["size_x"].tolist()))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels(labels)
    # Long labels (non-square sizes) or many ticks would collide: rotate.
    if len(labels) > 6 or max(len(s) for s in labels) > 5:  # noqa: E501
        plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    lo, hi = ticks["size_x"].min(), ticks["size_x"].max()
    ax.set_xlim(lo / 1.25, hi * 1.25)


def size_axis_label(kernel: str, pts: pd.DataFrame) -> str:
    square = ~pts["size_label"].str.contains(TIMES)
    if kernel == "gemm":
        return ("problem size m (m = n = k)" if square.all()
                else "problem size: (m\u00b7n\u00b7k)^(1/3), ticks m\u00d7n\u00d7k")
    if kernel == "transpose":
        return ("matrix size m (m\u00d7m elements)" if square.all()
                else "matrix size: \u221a(m\u00b7n), ticks m\u00d7n")
    if kernel == "conv2d":
        return "image size n (n\u00d7n pixels)"
    return "problem size m"


def series_labels(pts: pd.DataFrame) -> pd.Series:
    """Legend label per record: variant, plus backend / K only when needed."""
    lab = pts["variant"].copy()
    if pts["backend"].nunique() > 1:
        lab = lab + " (" + pts["backend"] + ")"
    ks = pts["kernel_size"].dropna().unique()
    if len(ks) > 1:
        lab = lab + ", K=" + pts["kernel_size"].map(rio.fmt_int)
    return lab


def save(fig, out_dir: str, name: str) -> str:
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return name


def time_yerr(g: pd.DataFrame) -> np.ndarray:
    """Error bars of +-stddev, clipped to the observed range of the samples.

    Timing noise is skewed (a few slow outliers inflate the stddev), so a bar
    of median - stddev can reach below the fastest sample, or below zero on a
    log axis; clipping at time_ms_min / time_ms_max keeps bars truthful.
    """
    y = g["time_ms_median"].to_numpy()
    s = np.nan_to_num(g["time_ms_stddev"].to_numpy(), nan=0.0)
    lo_room = (y - g["time_ms_min"]).to_numpy()
    lo_room = np.where(np.isfinite(lo_room) & (lo_room >= 0), lo_room, 0.9 * y)
    hi_room = (g["time_ms_max"] - y).to_numpy() if "time_ms_max" in g else np.full_like(y, np.inf)
    hi_room = np.where(np.isfinite(hi_room) & (hi_room >= 0), hi_room, np.inf)
    return np.vstack([np.minimum(s, np.minimum(lo_room, 0.9 * y)), np.minimum(s, hi_room)])


# --------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------

def fig_time(sub, kernel, dtype, out_dir):
    pts = sub[sub["ok"] & np.isfinite(sub["size_x"])].copy()
    if pts.empty:
        return None
    pts["series"] = series_labels(pts)
    best = rio.best_per(pts, ["series", "size_full"])
    styles = variant_styles(kernel, best["variant"])
    fig, ax = plt.subplots(figsize=(8.5, 5.2))
    for series, g in sorted(best.groupby("series"), key=lambda t: _series_sort(kernel, t[1])):
        g = g.sort_values("size_x")
        colour, marker = styles[g["variant"].iloc[0]]
        y = g["time_ms_median"].to_numpy()
        ax.errorbar(g["size_x"], y, yerr=time_yerr(g),
                    label=series, color=colour, marker=marker, markersize=5,
                    markerfacecolor=marker_face(g, best, colour),
                    linestyle=series_linestyle(g, best), capsize=3, linewidth=1.4)
    ax.set_xscale("log")
    ax.set_yscale("log")
    set_size_ticks(ax, best)
    readable_log_y(ax)
    ax.set_xlabel(size_axis_label(kernel, best))
    ax.set_ylabel("median time (ms, log scale)")
    ax.set_title(f"{kernel} ({dtype}): time vs size, best configuration per variant",
                 fontsize="medium")
    ax.grid(True, which="major", alpha=0.3)
    place_legend(ax, title="variant")
    caption = (f"{kernel}/{dtype}: median run time against problem size, log-log. "
               "Each variant is shown at its fastest block shape or thread count "
               "for that size; error bars are \u00b1 one standard deviation of the "
               "samples, clipped to the fastest and slowest sample (often smaller than "
               "the marker).")
    return save(fig, out_dir, f"time_{kernel}_{dtype}.png"), caption


def _series_sort(kernel, g):
    order = rio.variant_order(kernel, rio.KNOWN_VARIANTS.get(kernel, []) + [g["variant"].iloc[0]])
    ks = g["kernel_size"].iloc[0]
    return (order.index(g["variant"].iloc[0]), g["backend"].iloc[0],
            ks if math.isfinite(ks) else 0)


def metric_of(kernel: str, sub: pd.DataFrame):
    """(column, unit) of the throughput figure for a kernel, or None."""
    col, unit = rio.METRIC.get(kernel, (None, None))
    if col is None:
        for c in ("gflops", "gbps"):
            if np.isfinite(sub[c]).any():
                return c, rio.METRIC_UNIT[c]
        return None
    if not (np.isfinite(sub[col]) & (sub[col] > 0)).any():
        return None
    return col, unit


def ceilings_at(sub: pd.DataFrame, kernel: str, col: str) -> pd.DataFrame:
    """Per backend and size: the ceiling variant's best value of `col`."""
    frames = []
    for backend, variant in rio.CEILING_VARIANTS.get(kernel, {}).items():
        c = sub[sub["ok"] & (sub["backend"] == backend) & (sub["variant"] == variant)
                & np.isfinite(sub[col])]
        if c.empty:
            continue
        g = c.groupby("size_full").agg(value=(col, "max"), size_x=("size_x", "first"),
                                        size_label=("size_label", "first"),
                                        kernel_size=("kernel_size", "first"))
        g["backend"], g["variant"] = backend, variant
        frames.append(g.reset_index())
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["size_full", "value", "size_x", "size_label", "kernel_size",
                 "backend", "variant"])


def fig_throughput(sub, kernel, dtype, out_dir):
    m = metric_of(kernel, sub)
    if m is None:
        return None
    col, unit = m
    pts = sub[sub["ok"] & np.isfinite(sub["size_x"]) & np.isfinite(sub[col]) & (sub[col] > 0)].copy()
    if pts.empty:
        return None
    pts["series"] = series_labels(pts)
    ceil = ceilings_at(pts, kernel, col)
    ceil_variants = set(zip(ceil["backend"], ceil["variant"]))
    is_ceil = [(b, v) in ceil_variants for b, v in zip(pts["backend"], pts["variant"])]
    best = rio.best_per(pts[~np.array(is_ceil, dtype=bool)], ["series", "size_full"])
    styles = variant_styles(kernel, pts["variant"])
    fig, ax = plt.subplots(figsize=(8.5, 5.2))
    for series, g in sorted(best.groupby("series"), key=lambda t: _series_sort(kernel, t[1])):
        g = g.sort_values("size_x")
        colour, marker = styles[g["variant"].iloc[0]]
        ax.plot(g["size_x"], g[col], label=series, color=colour, marker=marker,
                markersize=5, markerfacecolor=marker_face(g, best, colour),
                linestyle=series_linestyle(g, best), linewidth=1.4)
    multi_k = ceil["kernel_size"].nunique() > 1
    for (backend, variant, ks), g in ceil.groupby(["backend", "variant", "kernel_size"], dropna=False):
        g = g.sort_values("size_x")
        lab = f"ceiling: {variant}" + (f", K={rio.fmt_int(ks)}" if multi_k else "")
        ax.plot(g["size_x"], g["value"], color="black" if backend == "cuda" else "dimgray",
                linewidth=2.4, linestyle=series_linestyle(g, ceil), alpha=0.75,
                marker="_", markersize=12, label=lab)
    ax.set_xscale("log")
    ax.set_yscale("log")
    readable_log_y(ax)
    set_size_ticks(ax, pd.concat([best[["size_x", "size_label"]], ceil[["size_x", "size_label"]]],
                                  ignore_index=True))
    ax.set_xlabel(size_axis_label(kernel, pts))
    ax.set_ylabel(f"achieved {unit} (log scale, higher is better)")
    what = "GFLOP/s" if col == "gflops" else "bandwidth"
    ax.set_title(f"{kernel} ({dtype}): {what} vs size", fontsize="medium")
    ax.grid(True, which="major", alpha=0.3)
    place_legend(ax, title="variant")
    if ceil.empty:
        note = "No ceiling variant was measured in this run."
    else:
        names = ", ".join(sorted({v for _, v in ceil_variants}))
        note = f"The black line is the ceiling measured in the same run ({names})."
    caption = (f"{kernel}/{dtype}: achieved {unit} against problem size, each variant at "
               f"its fastest configuration. {note}")
    return save(fig, out_dir, f"throughput_{kernel}_{dtype}.png"), caption


def scaling_table(sub: pd.DataFrame) -> pd.DataFrame:
    """Speedup/efficiency of CPU variants that were run at several thread counts.

    Speedup S(p) = T(p0) / T(p) of the same variant and size, p0 being the
    fewest threads measured (normally 1); efficiency = S(p) / (p / p0).  The
    values are recomputed here rather than read from the CSV so that the
    baseline is always the variant itself.
    """
    pts = sub[sub["ok"] & (sub["backend"] == "cpu") & np.isfinite(sub["threads"])].copy()
    if pts.empty:
        return pts
    pts["series"] = series_labels(pts)
    rows = []
    for (series, size), g in pts.groupby(["series", "size_full"]):
        # several records per thread count (other axes, e.g. OMP binding): keep the fastest
        g = g.sort_values("time_ms_median").drop_duplicates("threads").sort_values("threads")
        if len(g) < 2:
            continue
        p0, t0 = g["threads"].iloc[0], g["time_ms_median"].iloc[0]
        g = g.assign(p0=p0, speedup_calc=t0 / g["time_ms_median"])
        g["efficiency_calc"] = g["speedup_calc"] / (g["threads"] / p0)
        rows.append(g)
    return pd.concat(rows) if rows else pts.iloc[0:0]


def fig_scaling(sub, kernel, dtype, out_dir):
    sc = scaling_table(sub)
    if sc.empty:
        return None
    variants = rio.variant_order(kernel, sc["variant"])
    styles = variant_styles(kernel, variants)
    sizes = sc.drop_duplicates("size_full").sort_values(["size_x", "size_full"])["size_full"].tolist()
    cmap = plt.get_cmap("viridis")
    size_colour = {s: cmap(0.1 + 0.75 * i / max(1, len(sizes) - 1)) for i, s in enumerate(sizes)}
    series_list = list(dict.fromkeys(sc.sort_values("variant", key=lambda s: s.map(variants.index))["series"]))
    linestyles = ["-", "--", ":", "-."]
    fig, (ax_s, ax_e) = plt.subplots(1, 2, figsize=(11, 4.6))
    for (series, size), g in sc.groupby(["series", "size_full"]):
        g = g.sort_values("threads")
        i = series_list.index(series)
        _, marker = styles[g["variant"].iloc[0]]
        kw = dict(color=size_colour[size], marker=marker, markersize=6,
                  linestyle=linestyles[i % len(linestyles)], linewidth=1.4)
        ax_s.plot(g["threads"], g["speedup_calc"], **kw)
        ax_e.plot(g["threads"], 100 * g["efficiency_calc"], **kw)
    over = sc[sc["oversubscribed"] == True] if "oversubscribed" in sc else sc.iloc[0:0]  # noqa: E712
    for ax, col, scale in ((ax_s, "speedup_calc", 1), (ax_e, "efficiency_calc", 100)):
        if not over.empty:
            ax.scatter(over["threads"], scale * over[col], s=140, facecolors="none",
                       edgecolors="red", linewidths=1.3, zorder=4)
    threads = sorted(sc["threads"].unique())
    p0s = sc["p0"].unique()
    p0 = p0s[0] if len(p0s) == 1 else None
    if p0 is not None:
        ax_s.plot(threads, [t / p0 for t in threads], color="grey", linewidth=2.5,
                  alpha=0.4, zorder=0)
    ax_e.axhline(100, color="grey", linewidth=2.5, alpha=0.4, zorder=0)
    wide = threads[-1] / threads[0] > 8
    for ax in (ax_s, ax_e):
        if wide:
            ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(threads))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticklabels([rio.fmt_int(t) for t in threads])
        ax.set_xlabel("OpenMP threads")
        ax.grid(True, alpha=0.3)
    base = f"{rio.fmt_int(p0)} thread" + ("" if p0 == 1 else "s") if p0 is not None else "fewest threads"
    ax_s.set_ylabel(f"speedup over {base} (\u00d7)")
    ax_e.set_ylabel("parallel efficiency (%)")
    ax_e.set_ylim(0, max(110, 100 * sc["efficiency_calc"].max() * 1.08))
    if wide:
        # log-log keeps the ideal line straight and small counts readable
        ax_s.set_yscale("log", base=2)
        lo = min(sc["speedup_calc"].min(), 1.0) / 1.3
        hi = max(sc["speedup_calc"].max(), threads[-1] / threads[0]) * 1.3
        ax_s.set_ylim(lo, hi)
        yt = [2.0 ** e for e in range(math.floor(math.log2(lo)), math.ceil(math.log2(hi)) + 1)
              if lo <= 2.0 ** e <= hi]
        ax_s.yaxis.set_major_locator(FixedLocator(yt))
        ax_s.yaxis.set_minor_locator(NullLocator())
        ax_s.yaxis.set_major_formatter(FuncFormatter(plain_number))
    else:
        ax_s.set_ylim(bottom=0)
    ax_s.set_title("speedup", fontsize="medium")
    ax_e.set_title("parallel efficiency", fontsize="medium")
    fig.suptitle(f"{kernel} ({dtype}): OpenMP scaling", fontsize="medium")
    # Two legends: colour = size, marker/line = variant.
    size_handles = [Line2D([], [], color=size_colour[s], linewidth=2.5) for s in sizes]
    var_handles = []
    for series in series_list:
        v = sc.loc[sc["series"] == series, "variant"].iloc[0]
        var_handles.append(Line2D([], [], color="black", marker=styles[v][1],
                                  linestyle=linestyles[series_list.index(series) % len(linestyles)]))
    var_handles.append(Line2D([], [], color="grey", linewidth=2.5, alpha=0.4))
    var_labels = series_list + ["ideal"]
    if not over.empty:
        var_handles.append(Line2D([], [], linestyle="", marker="o", markersize=10,
                                  markerfacecolor="none", markeredgecolor="red"))
        var_labels.append("more threads than cores")
    keep_legend(ax_e, place_legend(ax_e, size_handles, sizes, title="size"))
    place_legend(ax_e, var_handles, var_labels, title="variant",
                 anchor=(1.02, 0.98 - 0.085 * (len(sizes) + 2)))
    fig.tight_layout()
    caption = (f"{kernel}/{dtype}: speedup T(p\u2080)/T(p) and parallel efficiency "
               "speedup/(p/p\u2080) of each OpenMP variant against its own run at the fewest "
               "threads p\u2080; colour = problem size, marker and line style = variant.")
    return save(fig, out_dir, f"scaling_{kernel}_{dtype}.png"), caption


def fig_heatmaps(sub, kernel, dtype, out_dir):
    """One heatmap per CUDA variant measured at more than one block shape."""
    out = []
    cuda = sub[(sub["backend"] == "cuda") & np.isfinite(sub["block_x"])].copy()
    for variant in rio.variant_order(kernel, cuda["variant"]):
        v = cuda[cuda["variant"] == variant].copy()
        v["shape"] = list(zip(v["block_x"], v["block_y"].fillna(1)))
        shapes = sorted(v["shape"].unique(), key=lambda s: (s[0] * s[1], s[0]))
        if len(shapes) < 2:
            continue
        ok = v[v["ok"]]
        if ok.empty:
            continue
        cols = v.drop_duplicates("size_full").sort_values(["kernel_size", "size_x", "size_full"])
        col_keys = cols["size_full"].tolist()
        multi_k = v["kernel_size"].nunique() > 1
        col_labels = [r.size_full if multi_k else r.size_label for r in cols.itertuples()]
        grid = np.full((len(shapes), len(col_keys)), np.nan)
        status = np.full(grid.shape, "", dtype=object)
        for r in v.itertuples():
            i, j = shapes.index(r.shape), col_keys.index(r.size_full)
            if r.ok:
                # several records per cell (other axes): show the fastest
                grid[i, j] = np.fmin(grid[i, j], r.time_ms_median)
            else:
                status[i, j] = r.status
        best_t = np.nanmin(np.where(np.isfinite(grid), grid, np.inf), axis=0)
        rel = grid / best_t
        finite = rel[np.isfinite(rel)]
        vmax = max(1.5, float(finite.max())) if finite.size else 2.0

        w = max(5.5, 1.25 * len(col_keys) + 3.0)
        h = max(3.0, 0.55 * len(shapes) + 2.0)
        fig, ax = plt.subplots(figsize=(w, h))
        cmap = plt.get_cmap("YlOrRd").copy()
        cmap.set_bad("#d9d9d9")
        im = ax.imshow(np.ma.masked_invalid(rel), cmap=cmap, aspect="auto",
                       norm=LogNorm(vmin=1.0, vmax=vmax))
        fs = 8 if len(col_keys) <= 6 else 7
        best_i = [int(np.argmin(np.where(np.isfinite(grid[:, j]), grid[:, j], np.inf)))
                  if np.isfinite(best_t[j]) else -1 for j in range(len(col_keys))]
        for i in range(len(shapes)):
            for j in range(len(col_keys)):
                if np.isfinite(grid[i, j]):
                    light = rel[i, j] < math.sqrt(vmax)
                    ax.text(j, i, _fmt_ms(grid[i, j]), ha="center", va="center",
                            fontsize=fs, color="black" if light else "white",
                            fontweight="bold" if best_i[j] == i else "normal")
                elif status[i, j]:
                    ax.text(j, i, status[i, j], ha="center", va="center",
                            fontsize=fs, color="#555555", style="italic")
        for j, i in enumerate(best_i):
            if i >= 0:
                # inset so that frames of neighbouring best cells stay apart
                ax.add_patch(Rectangle((j - 0.44, i - 0.42), 0.88, 0.84, fill=False,
                                       edgecolor="#1f4e9c", linewidth=2.2))
        ax.set_xticks(range(len(col_keys)))
        ax.set_xticklabels(col_labels)
        if multi_k or max(len(s) for s in col_labels) > 6:
            plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
        ax.set_yticks(range(len(shapes)))
        ax.set_yticklabels([f"{rio.fmt_int(a)}{TIMES}{rio.fmt_int(b)}" for a, b in shapes])
        ax.set_xlabel(size_axis_label(kernel, v) if not multi_k else "problem size, kernel size K")
        ax.set_ylabel("block shape (x \u00d7 y threads)")
        ax.set_title(f"{kernel} {variant} ({dtype}): median time (ms) per block shape"
                     " (frame = best)", fontsize="medium")
        cb = fig.colorbar(im, ax=ax, pad=0.02)
        ticks = [t for t in (1, 1.1, 1.25, 1.5, 2, 3, 5, 10, 20, 50, 100, 1000) if t <= vmax]
        cb.set_ticks(ticks)
        cb.set_ticklabels([f"{t:g}\u00d7" for t in ticks])
        cb.ax.minorticks_off()
        cb.set_label("time / best time at this size")
        fig.tight_layout()
        name = f"heatmap_{kernel}_{dtype}_{variant}.png"
        caption = (f"{kernel}/{dtype}, CUDA variant {variant}: median time in ms for every "
                   "block shape (rows) and size (columns). Colour is the time relative to "
                   "the fastest shape at that size; the blue frame marks the best shape. "
                   "Grey cells did not produce a valid time (status shown).")
        out.append((save(fig, out_dir, name), caption))
    return out


def _fmt_ms(t: float) -> str:
    if t >= 100:
        return f"{t:.0f}"
    if t >= 10:
        return f"{t:.1f}"
    if t >= 1:
        return f"{t:.2f}"
    return f"{t:.3g}"


def run_ceilings(df: pd.DataFrame, backend: str, dtype: str):
    """Measured bandwidth and compute ceilings of a run for one backend.

    Bandwidth: best GB/s of the `copy` variant, else of any transpose point
    (memory bound, so the closest to a bandwidth measurement), else of any
    point of that backend.  Compute: best GFLOP/s of cublas (cuda) / openblas (cpu) in
    this dtype, else best GFLOP/s of any point of that backend and dtype.
    Returns ((bw, bw_label), (peak, peak_label)); values may be None.
    """
    ok = df[df["ok"] & (df["backend"] == backend)]
    bw = None
    copy = ok[(ok["variant"] == "copy") & np.isfinite(ok["gbps"])]
    if not copy.empty:
        bw = (float(copy["gbps"].max()), "copy")
    else:
        any_bw = ok[np.isfinite(ok["gbps"]) & (ok["gbps"] > 0)]
        if (any_bw["kernel"] == "transpose").any():
            any_bw = any_bw[any_bw["kernel"] == "transpose"]
        if not any_bw.empty:
            r = any_bw.loc[any_bw["gbps"].idxmax()]
            bw = (float(r["gbps"]), f"best point: {r['kernel']} {r['variant']}")
    peak = None
    roof_variant = rio.CEILING_VARIANTS["gemm"].get(backend)
    d = ok[(ok["dtype"] == dtype) & np.isfinite(ok["gflops"]) & (ok["gflops"] > 0)]
    roof = d[(d["kernel"] == "gemm") & (d["variant"] == roof_variant)]
    if not roof.empty:
        peak = (float(roof["gflops"].max()), roof_variant)
    elif not d.empty:
        r = d.loc[d["gflops"].idxmax()]
        peak = (float(r["gflops"]), f"best point: {r['kernel']} {r['variant']}")
    return bw, peak


def fig_roofline(df, sub, kernel, dtype, out_dir):
    if not (np.isfinite(sub["gflops"]) & (sub["gflops"] > 0)).any():
        return None
    pts = sub[sub["ok"] & np.isfinite(sub["gflops"]) & (sub["gflops"] > 0)].copy()
    pts["ai"] = rio.arithmetic_intensity(pts)
    pts = pts[np.isfinite(pts["ai"]) & (pts["ai"] > 0)]
    if pts.empty:
        return None
    pts["series"] = series_labels(pts)
    best = rio.best_per(pts, ["series", "size_full"])
    styles = variant_styles(kernel, best["variant"])
    fig, ax = plt.subplots(figsize=(8.5, 5.4))
    for series, g in sorted(best.groupby("series"), key=lambda t: _series_sort(kernel, t[1])):
        colour, marker = styles[g["variant"].iloc[0]]
        face = marker_face(g, best, colour, scatter=True)
        ax.scatter(g["ai"], g["gflops"], facecolors=face, marker=marker, s=36,
                   edgecolors="black" if face is colour else colour,
                   linewidths=0.4 if face is colour else 1.4, label=series, zorder=3)
    ai_lo, ai_hi = best["ai"].min() / 3, best["ai"].max() * 3
    y_lo, y_hi = best["gflops"].min() / 2, best["gflops"].max() * 2
    roof_handles = []
    for backend in sorted(best["backend"].unique()):
        bw, peak = run_ceilings(df, backend, dtype)
        style = BACKEND_STYLE.get(backend, "-")
        if bw and peak:
            ridge = peak[0] / bw[0]
            ai_lo, ai_hi = min(ai_lo, ridge / 3), max(ai_hi, ridge * 3)
        x = np.logspace(math.log10(ai_lo), math.log10(ai_hi), 200)
        if bw:
            y = x * bw[0] if not peak else np.minimum(x * bw[0], peak[0])
            h, = ax.plot(x, y, color="black", linestyle=style, linewidth=1.6, alpha=0.8,
                         label=f"{backend} bandwidth: {bw[0]:,.0f} GB/s ({bw[1]})")
            roof_handles.append(h)
        if peak:
            y_hi = max(y_hi, peak[0] * 2)
            h, = ax.plot(x, np.full_like(x, peak[0]), color="dimgray", linestyle=style,
                         linewidth=1.0, alpha=0.8,
                         label=f"{backend} compute: {peak[0]:,.0f} GFLOP/s ({peak[1]})")
            roof_handles.append(h)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(ai_lo, ai_hi)
    ax.set_ylim(y_lo, y_hi)  # headroom above the roof
    readable_log_axis(ax.xaxis, ai_lo, ai_hi)
    readable_log_y(ax)
    ax.set_xlabel("arithmetic intensity (FLOP/byte, log scale)")
    ax.set_ylabel("achieved GFLOP/s (log scale)")
    ax.set_title(f"{kernel} ({dtype}): roofline with the run's measured ceilings",
                 fontsize="medium")
    ax.grid(True, which="major", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    pt_h = [(h, l) for h, l in zip(handles, labels) if h not in roof_handles]
    leg = place_legend(ax, [h for h, _ in pt_h], [l for _, l in pt_h], title="variant (best config per size)")
    if roof_handles:
        keep_legend(ax, leg)
        ax.legend(roof_handles, [h.get_label() for h in roof_handles], loc="upper center",
                  bbox_to_anchor=(0.5, -0.13), fontsize="small", frameon=False,
                  title="measured ceilings", title_fontsize="small")
    caption = (f"{kernel}/{dtype}: each variant at its best configuration per size, placed "
               "by arithmetic intensity (FLOP per byte: recorded arith_intensity, else "
               "GFLOP/s \u00f7 GB/s, else a compulsory-traffic model) and achieved GFLOP/s. "
               "The roofs are measured in the same run: the slope is the best copy "
               "bandwidth (else the best GB/s of any point), the flat roof the best "
               "cublas/openblas GFLOP/s (else the best point) in this dtype; cublas_tf32 "
               "computes with TF32 tensor cores and may lie above the FP32 roof.")
    return save(fig, out_dir, f"roofline_{kernel}_{dtype}.png"), caption


# --------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------

def fmt_num(v: float, unit: str = "") -> str:
    if v is None or not math.isfinite(v):
        return "\u2014"
    if abs(v) >= 1000:
        s = f"{v:,.0f}"
    elif abs(v) >= 10:
        s = f"{v:.1f}"
    else:
        s = f"{v:.3g}"
    return f"{s} {unit}".strip()


def best_table(df: pd.DataFrame, own_only: bool = False) -> tuple[list[str], list[list[str]]]:
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
        return headers, []
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
    return headers, rows


def not_ok_table(df: pd.DataFrame):
    headers = ["point_id", "kernel", "variant", "dtype", "size", "config", "status", "message"]
    bad = df[df["status"] != "ok"].sort_values(["status", "kernel", "variant", "point_id"])
    rows = [[r.point_id or "\u2014", r.kernel, r.variant, r.dtype or "\u2014",
             r.size_full or "\u2014", r.config,
             r.status or "(none)", r.message or "\u2014"] for r in bad.itertuples()]
    return headers, rows


def missing_table(df: pd.DataFrame, manifest: dict):
    planned = rio.manifest_points(manifest)
    have = set(df["point_id"])
    missing = [p for p in planned if str(p["point_id"]) not in have]
    if not missing:
        return None, planned
    # Show the point's own descriptive fields when the manifest has them.
    extra = [k for k in ("kernel", "variant", "backend", "dtype", "m", "n", "k",
                         "kernel_size", "block_x", "block_y", "threads")
             if any(k in p for p in missing)]
    headers = ["point_id"] + extra
    rows = [[str(p["point_id"])] + [_cell(p.get(k)) for k in extra] for p in missing]
    return (headers, rows), planned


def _cell(v) -> str:
    if v is None or v == "":
        return "\u2014"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


# --------------------------------------------------------------------------
# Document model, rendered to Markdown and HTML
# --------------------------------------------------------------------------

class Doc:
    def __init__(self):
        self.blocks: list[tuple] = []

    def h(self, level, text):
        self.blocks.append(("h", level, text))

    def p(self, text):
        self.blocks.append(("p", text))

    def table(self, headers, rows):
        self.blocks.append(("table", headers, rows))

    def figure(self, name, caption):
        self.blocks.append(("figure", name, caption))

    def markdown(self) -> str:
        out = []
        for b in self.blocks:
            if b[0] == "h":
                out.append("#" * b[1] + " " + b[2])
            elif b[0] == "p":
                out.append(b[1])
            elif b[0] == "table":
                out.append(_md_table(b[1], b[2]))
            elif b[0] == "figure":
                out.append(f"![{b[1][:-4]}]({b[1]})\n\n*{_md_escape(b[2])}*")
        return "\n\n".join(out) + "\n"

    def html(self, out_dir: str, title: str) -> str:
        body = []
        for b in self.blocks:
            if b[0] == "h":
                body.append(f"<h{b[1]}>{html.escape(b[2])}</h{b[1]}>")
            elif b[0] == "p":
                body.append(f"<p>{html.escape(b[1])}</p>")
            elif b[0] == "table":
                head = "".join(f"<th>{html.escape(c)}</th>" for c in b[1])
                rows = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r)
                               + "</tr>" for r in b[2])
                body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
            elif b[0] == "figure":
                with open(os.path.join(out_dir, b[1]), "rb") as fh:
                    data = base64.b64encode(fh.read()).decode("ascii")
                body.append(f'<figure><img src="data:image/png;base64,{data}" '
                            f'alt="{html.escape(b[1])}"><figcaption><code>{html.escape(b[1])}'
                            f"</code>: {html.escape(b[2])}</figcaption></figure>")
        style = ("body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;"
                 "color:#222}table{border-collapse:collapse;margin:1em 0;font-size:90%}"
                 "th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}"
                 "th{background:#f0f0f0}tbody tr:nth-child(even){background:#fafafa}"
                 "figure{margin:1.5em 0}img{max-width:100%;height:auto}"
                 "figcaption{font-size:90%;color:#444}")
        return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
                f"<title>{html.escape(title)}</title><style>{style}</style></head>\n<body>\n"
                + "\n".join(body) + "\n</body></html>\n")


def _md_escape(s: str) -> str:
    return str(s).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ") \
        .replace("[", "\\[").replace("]", "\\]")


def _md_table(headers, rows) -> str:
    lines = ["| " + " | ".join(_md_escape(h) for h in headers) + " |",
             "| " + " | ".join("---" for _ in headers) + " |"]
    for r in rows:
        lines.append("| " + " | ".join(_md_escape(c) for c in r) + " |")
    return "\n".join(lines)


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------

def build_report(results_dir: str, out_dir: str) -> Doc:
    df = rio.load_records(results_dir)
    manifest = rio.load_manifest(results_dir)
    os.makedirs(out_dir, exist_ok=True)
    # Stale figures from an earlier report of a different result set would be
    # confusing next to the new ones.
    for f in os.listdir(out_dir):
        if f.endswith(".png"):
            os.remove(os.path.join(out_dir, f))

    doc = Doc()
    prov = rio.provenance(manifest, df)
    exp = dict(prov).get("experiment", os.path.basename(os.path.abspath(results_dir)))
    doc.h(1, f"Report: {exp}")
    doc.p(f"Generated by analysis/report.py from {os.path.abspath(results_dir)}.")

    doc.h(2, "Provenance")
    doc.table(["item", "value"], [[k, v] for k, v in prov])

    doc.h(2, "Summary")
    missing, planned = missing_table(df, manifest)
    counts = df["status"].replace("", "(none)").value_counts()
    summary = [[s, str(int(counts[s]))] for s in ("ok", "failed", "skipped", "invalid")
               if s in counts] + [[s, str(int(c))] for s, c in counts.items()
                                  if s not in ("ok", "failed", "skipped", "invalid")]
    if planned:
        summary.append(["missing (planned, no record)", str(len(missing[1]) if missing else 0)])
        summary.append(["planned in manifest", str(len(planned))])
    doc.table(["status", "points"], summary or [["(no records)", "0"]])

    doc.h(2, "Best variant per size")
    doc.p("Lowest median time among points with status ok, per kernel, dtype, backend and "
          "size. Throughput is GFLOP/s (gemm, conv2d) or GB/s (transpose); the ceiling is "
          "the same run's cublas/openblas (gemm), cudnn (conv2d) or copy (transpose) at the "
          "same size. The copy variant only serves as a ceiling and is not a candidate; "
          "cublas_tf32 computes in TF32 and can exceed the FP32 cublas ceiling.")
    headers, rows = best_table(df)
    if rows:
        doc.table(headers, rows)
    else:
        doc.p("No point finished with status ok.")
    if df.loc[df["ok"], "variant"].isin(rio.VENDOR_VARIANTS).any():
        headers, rows = best_table(df, own_only=True)
        if rows:
            doc.h(2, "Best own implementation per size")
            doc.p("As above, without the vendor libraries (" +
                  ", ".join(sorted(rio.VENDOR_VARIANTS)) + "): how close the project's "
                  "own kernels come to the ceiling.")
            doc.table(headers, rows)

    doc.h(2, "Points that did not succeed")
    headers, rows = not_ok_table(df)
    if rows:
        doc.table(headers, rows)
    elif df.empty:
        doc.p("None: the run has no records.")
    else:
        doc.p("None: every recorded point has status ok.")

    if planned:
        doc.h(2, "Missing points")
        if missing:
            doc.p("Listed in manifest.json but without a record (run interrupted or still going).")
            doc.table(*missing)
        else:
            doc.p("None: every planned point has a record.")

    doc.h(2, "Figures")
    figures = 0
    for kernel in sorted(df["kernel"].unique()):
        for dtype in sorted(df.loc[df["kernel"] == kernel, "dtype"].unique()):
            sub = df[(df["kernel"] == kernel) & (df["dtype"] == dtype)]
            dname = dtype or "na"
            made = [fig_time(sub, kernel, dname, out_dir),
                    fig_throughput(sub, kernel, dname, out_dir),
                    fig_scaling(sub, kernel, dname, out_dir)]
            made += fig_heatmaps(sub, kernel, dname, out_dir)
            made.append(fig_roofline(df, sub, kernel, dname, out_dir))
            made = [m for m in made if m]
            if not made:
                continue
            doc.h(3, f"{kernel} / {dname}")
            for name, caption in made:
                doc.figure(name, caption)
                figures += 1
    if figures == 0:
        doc.p("No figures: no point has both a size and a valid time.")
    return doc


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Figures and tables from a runner results directory.")
    ap.add_argument("results_dir", help="directory with records.csv / records.jsonl / manifest.json")
    ap.add_argument("--out", help="output directory (default RESULTS_DIR/report)")
    args = ap.parse_args(argv)
    if not os.path.isdir(args.results_dir):
        print(f"report: {args.results_dir}: no such directory", file=sys.stderr)
        return 2
    out_dir = args.out or os.path.join(args.results_dir, "report")
    doc = build_report(args.results_dir, out_dir)
    with open(os.path.join(out_dir, "report.md"), "w", encoding="utf-8") as fh:
        fh.write(doc.markdown())
    title = next((b[2] for b in doc.blocks if b[0] == "h"), "report")
    with open(os.path.join(out_dir, "report.html"), "w", encoding="utf-8") as fh:
        fh.write(doc.html(out_dir, title))
    print(os.path.join(out_dir, "report.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
