"""speedup_<kernel>_<dtype>.png: the seed reports' speedup and efficiency
against problem size, per variant.

Speedup is the `speedup` column: the median of the config's baseline (e.g.
omp_serial) on the same problem over the point's, so GPU points are measured
against the CPU baseline; efficiency is the `efficiency` column wherever the
runner filled it (OpenMP points: speedup / threads), named "efficiency over the
baseline": it is not the strong-scaling efficiency of a variant (scaling.py).  OpenMP variants keep one
series per thread count (efficiency depends on it); CUDA variants are shown at
their fastest block shape and grid per size.  Drawn only when the run has a
baseline."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import results_io as rio
from .common import (Figure, figure_name, place_legend, readable_log_y, save, set_size_ticks,
                     size_axis_label, subject, title)
from .series import add_series, extra_handles, mark_noisy, plot_along_size, series_order, series_styles


def speedup_figure(sub: pd.DataFrame, kernel: str, dtype: str, out_dir: str,
                   info=None) -> list[Figure]:
    """Speedup (and efficiency, where recorded) against size for one kernel and dtype; none
    when no point has a speedup (the config has no baseline)."""
    pts = sub[sub["ok"] & np.isfinite(sub["size_x"]) & np.isfinite(sub["speedup"])
              & (sub["speedup"] > 0) & (sub["is_baseline"] != True)]  # noqa: E712
    if pts.empty:
        return []
    pts = add_series(pts, axes=("kernel_size", "threads"))
    best = rio.best_per(pts, ["series", "size_full"])
    best.attrs = pts.attrs
    with_eff = best[np.isfinite(best["efficiency"])]
    styles = series_styles(kernel, best)
    panels = 2 if not with_eff.empty else 1
    fig, axes = plt.subplots(1, panels, figsize=(6.2 * panels + 2.6, 4.9), squeeze=False)
    ax_s = axes[0][0]
    handles = []
    for series in series_order(kernel, best):
        g = best[best["series"] == series]
        handles.append(plot_along_size(ax_s, g, "size_x", "speedup", styles[series], series))
        if panels == 2 and np.isfinite(g["efficiency"]).any():
            plot_along_size(axes[0][1], g, "size_x", "efficiency", styles[series], series)
    noise = mark_noisy(ax_s, best, "size_x", "speedup")
    baseline = rio.baseline_variant(sub) or "the baseline"
    ax_s.axhline(1, color="grey", linewidth=2.2, alpha=0.45, zorder=0)
    ax_s.set_yscale("log")
    readable_log_y(ax_s)
    ax_s.set_ylabel(f"speedup over {baseline} (\u00d7, log scale)")
    ax_s.set_title("speedup", fontsize="medium")
    if panels == 2:
        ax_e = axes[0][1]
        mark_noisy(ax_e, with_eff, "size_x", "efficiency")
        ax_e.axhline(1, color="grey", linewidth=2.2, alpha=0.45, zorder=0)
        # GPU efficiencies (speedup / warps) may span decades, OpenMP ones lie in 0..1
        if with_eff["efficiency"].max() > 20 * max(with_eff["efficiency"].min(), 1e-9):
            ax_e.set_yscale("log")
            readable_log_y(ax_e)
        else:
            ax_e.set_ylim(bottom=0)
        ax_e.set_ylabel("efficiency over the baseline (speedup / threads or warps)")
        ax_e.set_title("the seeds' efficiency over the baseline (where recorded)",
                       fontsize="medium")
    for ax in axes[0]:
        ax.set_xscale("log")
        set_size_ticks(ax, best)
        ax.set_xlabel(size_axis_label(kernel, best))
        ax.grid(True, which="major", alpha=0.3)
    title(fig, f"{subject(kernel, dtype)}: speedup over {baseline} vs size", info,
          best["backend"].unique())
    extra = extra_handles(best, noise)
    place_legend(axes[0][-1], handles + extra, [h.get_label() for h in handles + extra],
                 title="variant")
    fig.tight_layout()
    caption = (f"{subject(kernel, dtype)}: speedup = median of the baseline {baseline} on the "
               "same problem / the point's median, measured in the same run (GPU points "
               "against the CPU baseline), against problem size"
               + ("; right: the records' efficiency over the baseline (OpenMP: speedup / "
                  "threads; not the strong-scaling efficiency of a variant, which the scaling "
                  "figure shows)" if panels == 2 else "")
               + ". OpenMP variants have one line per thread count, CUDA variants are at "
               "their fastest launch configuration per size; the grey line is the baseline. "
               "A red halo marks a noisy point (noise_warning).")
    return [save(fig, out_dir, figure_name("speedup", kernel, dtype), caption)]

