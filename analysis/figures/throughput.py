"""throughput_<kernel>_<dtype>.png: achieved GFLOP/s (gemm, conv2d) or GB/s
(transpose) against problem size, best configuration per variant, with the
ceiling variant measured in the same run (cublas/openblas, cudnn, copy) drawn
as a thick line instead of as a competitor."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import results_io as rio
from .common import (Figure, marker_face, place_legend, readable_log_y, save,
                     series_labels, series_linestyle, series_sort, set_size_ticks,
                     size_axis_label, variant_styles)


def throughput_figure(sub: pd.DataFrame, kernel: str, dtype: str, out_dir: str) -> list[Figure]:
    """The throughput figure of one kernel and dtype (`sub`: its records); none
    for kernels without a rate (hello) or when no point has a positive one."""
    m = metric_of(kernel, sub)
    if m is None:
        return []
    col, unit = m
    pts = sub[sub["ok"] & np.isfinite(sub["size_x"]) & np.isfinite(sub[col]) & (sub[col] > 0)].copy()
    if pts.empty:
        return []
    pts["series"] = series_labels(pts)
    ceil = ceilings_at(pts, kernel, col)
    ceil_variants = set(zip(ceil["backend"], ceil["variant"]))
    is_ceil = [(b, v) in ceil_variants for b, v in zip(pts["backend"], pts["variant"])]
    best = rio.best_per(pts[~np.array(is_ceil, dtype=bool)], ["series", "size_full"])
    styles = variant_styles(kernel, pts["variant"])
    fig, ax = plt.subplots(figsize=(8.5, 5.2))
    for series, g in sorted(best.groupby("series"), key=lambda t: series_sort(kernel, t[1])):
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
    return [save(fig, out_dir, f"throughput_{kernel}_{dtype}.png", caption)]


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
