"""grid_<kernel>_<dtype>.png: the seed reports' grid sweep (report 003's q
sweep: one thread per block, q blocks) as line plots: time, and speedup and
efficiency where the run recorded them, against the number of blocks launched.

One line per variant, problem, block shape and kernel size, each along the grid
axis with everything else fixed.  The x position is `grid_blocks` (the blocks
actually launched) where recorded, else the grid asked for; a grid of 0 (the
variant's own choice) without grid_blocks has no place on the axis and is left
out (the heatmap shows it)."""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.ticker import FixedLocator, NullLocator
import numpy as np
import pandas as pd

from .common import (Figure, figure_name, place_legend, plain_number, readable_log_y, save,
                     subject, title)
from .series import add_series, mark_noisy, plot_along_size, series_order, series_styles

PANELS = [("time_ms_median", "median time (ms, log scale)", "time", True),
          ("speedup", "speedup over the baseline (\u00d7, log scale)", "speedup", True),
          ("efficiency", "efficiency (as recorded)", "efficiency", False)]


def grid_figure(sub: pd.DataFrame, kernel: str, dtype: str, out_dir: str,
                info=None) -> list[Figure]:
    """The grid sweep of one kernel and dtype; none when no variant was measured at two or
    more grid sizes with everything else fixed."""
    pts = sub[sub["ok"] & np.isfinite(sub["grid"])].copy()
    if pts.empty:
        return []
    launched = pts["grid_blocks"].where(pts["grid_blocks"] > 0)
    pts["blocks"] = launched.fillna(pts["grid"].where(pts["grid"] > 0))
    pts = pts[np.isfinite(pts["blocks"])]
    pts = add_series(pts, axes=("size_full", "block", "kernel_size"))
    sweeps = pts.groupby("series")["blocks"].nunique()
    pts = pts[pts["series"].isin(sweeps[sweeps > 1].index)]
    if pts.empty:
        return []
    # along the grid axis every point of a series has one problem: one line through them all
    pts["shape"] = ""
    panels = [p for p in PANELS if np.isfinite(pts[p[0]]).any()]
    styles = series_styles(kernel, pts)
    fig, axes = plt.subplots(1, len(panels), figsize=(5.0 * len(panels) + 2.8, 4.6), squeeze=False)
    handles, noise = [], None
    for col, ylabel, name, log in panels:
        ax = axes[0][panels.index((col, ylabel, name, log))]
        for series in series_order(kernel, pts):
            g = pts[pts["series"] == series]
            h = plot_along_size(ax, g, "blocks", col, styles[series], series)
            if col == panels[0][0]:
                handles.append(h)
        noise = mark_noisy(ax, pts, "blocks", col) or noise
        ax.set_xscale("log", base=2)
        ticks = sorted(pts["blocks"].unique())
        ax.xaxis.set_major_locator(FixedLocator(ticks))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticklabels([plain_number(t) for t in ticks])
        if len(ticks) > 6:
            plt.setp(ax.get_xticklabels(), rotation=45, ha="right")
        if log:
            ax.set_yscale("log")
            readable_log_y(ax)
        else:
            ax.set_ylim(bottom=0)
        ax.set_xlabel("thread blocks launched (grid, log scale)")
        ax.set_ylabel(ylabel)
        ax.set_title(name, fontsize="medium")
        ax.grid(True, which="major", alpha=0.3)
    if noise:
        handles.append(noise)
    title(fig, f"{subject(kernel, dtype)}: grid sweep", info, pts["backend"].unique())
    place_legend(axes[0][-1], handles, [h.get_label() for h in handles], title="series")
    fig.tight_layout()
    shown = ", ".join(p[2] for p in panels)
    caption = (f"{subject(kernel, dtype)}: {shown} against the number of thread blocks "
               "launched, one line per variant, problem size and block shape (report 003's "
               "q sweep: one thread per block, q blocks). Speedup is over the config's "
               "baseline on the same problem, efficiency as the runner recorded it; a red "
               "halo marks a noisy point (noise_warning).")
    return [save(fig, out_dir, figure_name("grid", kernel, dtype), caption)]
