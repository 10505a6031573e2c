"""time_<kernel>_<dtype>.png: median time against problem size, one series per
variant (and kernel size K) at its fastest configuration for each size,
log-log; lines join only problems of one shape, noisy points are haloed."""

from __future__ import annotations

import numpy as np
import pandas as pd

import matplotlib.pyplot as plt

import results_io as rio
from .common import (Figure, figure_name, place_legend, readable_log_y, save, set_size_ticks,
                     size_axis_label, subject, title)
from .series import add_series, extra_handles, mark_noisy, plot_along_size, series_order, series_styles


def time_figure(sub: pd.DataFrame, kernel: str, dtype: str, out_dir: str, info=None) -> list[Figure]:
    """The time figure of one kernel and dtype (`sub`: its records); none
    when no point has both a size and a valid time."""
    pts = sub[sub["ok"] & np.isfinite(sub["size_x"])]
    if pts.empty:
        return []
    pts = add_series(pts)
    best = rio.best_per(pts, ["series", "size_full"])
    best.attrs = pts.attrs
    styles = series_styles(kernel, best)
    fig, ax = plt.subplots(figsize=(8.5, 5.2))
    handles = []
    for series in series_order(kernel, best):
        g = best[best["series"] == series].sort_values("size_x")
        style = styles[series]
        ax.errorbar(g["size_x"], g["time_ms_median"], yerr=time_yerr(g), fmt="none",
                    ecolor=style.colour, capsize=3, linewidth=1.0, zorder=2)
        handles.append(plot_along_size(ax, g, "size_x", "time_ms_median", style, series))
    noise = mark_noisy(ax, best, "size_x", "time_ms_median")
    ax.set_xscale("log")
    ax.set_yscale("log")
    set_size_ticks(ax, best)
    readable_log_y(ax)
    ax.set_xlabel(size_axis_label(kernel, best))
    ax.set_ylabel("median time (ms, log scale)")
    title(ax, f"{subject(kernel, dtype)}: time vs size, best configuration per variant", info,
          best["backend"].unique())
    ax.grid(True, which="major", alpha=0.3)
    handles += extra_handles(best, noise)
    place_legend(ax, handles, [h.get_label() for h in handles], title="variant")
    caption = (f"{subject(kernel, dtype)}: median run time against problem size, log-log. "
               "Each variant is shown at its fastest block shape or thread count "
               "for that size; error bars are \u00b1 one standard deviation of the "
               "samples, clipped to the fastest and slowest sample (often smaller than "
               "the marker). Lines join problems of one shape only; a red halo marks a "
               "point whose samples did not settle (noise_warning).")
    return [save(fig, out_dir, figure_name("time", kernel, dtype), caption)]


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
