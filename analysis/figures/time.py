"""time_<kernel>_<dtype>.png: median time against problem size, one line per
variant at its fastest configuration for each size, log-log."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import results_io as rio
from .common import (Figure, marker_face, place_legend, readable_log_y, save,
                     series_labels, series_linestyle, series_sort, set_size_ticks,
                     size_axis_label, variant_styles)


def time_figure(sub: pd.DataFrame, kernel: str, dtype: str, out_dir: str) -> list[Figure]:
    """The time figure of one kernel and dtype (`sub`: its records); none
    when no point has both a size and a valid time."""
    pts = sub[sub["ok"] & np.isfinite(sub["size_x"])].copy()
    if pts.empty:
        return []
    pts["series"] = series_labels(pts)
    best = rio.best_per(pts, ["series", "size_full"])
    styles = variant_styles(kernel, best["variant"])
    fig, ax = plt.subplots(figsize=(8.5, 5.2))
    for series, g in sorted(best.groupby("series"), key=lambda t: series_sort(kernel, t[1])):
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
    return [save(fig, out_dir, f"time_{kernel}_{dtype}.png", caption)]



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
