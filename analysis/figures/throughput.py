"""throughput_<kernel>_<dtype>.png: achieved GFLOP/s (gemm, conv2d) or GB/s
(transpose) against problem size, best configuration per variant, with the
reference variant measured in the same run (cuBLAS/OpenBLAS, cuDNN, copy) drawn
thick, and the calibrated ceiling of each backend (runner calibrate: FMA peak or
OpenBLAS GEMM, copy bandwidth) as a flat dash-dotted line."""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D
import numpy as np
import pandas as pd

from above_ceiling import calibration_caption, ceiling_flag, mark_above
import results_io as rio
from .common import (Figure, figure_name, place_legend, readable_log_y, save, set_size_ticks,
                     size_axis_label, subject, title)
from .series import add_series, extra_handles, mark_noisy, plot_along_size, series_order, series_styles


def throughput_figure(sub: pd.DataFrame, kernel: str, dtype: str, out_dir: str,
                      info=None) -> list[Figure]:
    """The throughput figure of one kernel and dtype (`sub`: its records); none
    for kernels without a rate (hello) or when no point has a positive one."""
    m = metric_of(kernel, sub)
    if m is None:
        return []
    col, unit = m
    pts = sub[sub["ok"] & np.isfinite(sub["size_x"]) & np.isfinite(sub[col]) & (sub[col] > 0)]
    if pts.empty:
        return []
    pts = add_series(pts)
    best = rio.best_per(pts, ["series", "size_full"])
    best.attrs = pts.attrs
    refs = {v for v in rio.REFERENCE_VARIANTS.get(kernel, {}).values()}
    styles = series_styles(kernel, best)
    fig, ax = plt.subplots(figsize=(8.5, 5.2))
    handles = []
    for series in series_order(kernel, best):
        g = best[best["series"] == series]
        is_ref = g["variant"].iloc[0] in refs
        label = series + (" (reference)" if is_ref else "")
        handles.append(plot_along_size(ax, g, "size_x", col, styles[series], label,
                                       linewidth=2.8 if is_ref else 1.4))
    noise = mark_noisy(ax, best, "size_x", col)
    ceiling_handles = draw_ceilings(ax, best, kernel, dtype, col, info)
    above = mark_above(ax, best, "size_x", col, info)
    if above:
        ceiling_handles.append(above)
    ax.set_xscale("log")
    ax.set_yscale("log")
    readable_log_y(ax)
    set_size_ticks(ax, best)
    ax.set_xlabel(size_axis_label(kernel, best))
    ax.set_ylabel(f"achieved {unit} (log scale, higher is better)")
    what = "GFLOP/s" if col == "gflops" else "bandwidth"
    title(ax, f"{subject(kernel, dtype)}: {what} vs size{ceiling_flag(info, best['backend'].unique())}",
          info, best["backend"].unique())
    ax.grid(True, which="major", alpha=0.3)
    extra = ceiling_handles + extra_handles(best, noise)
    place_legend(ax, handles + extra, [h.get_label() for h in handles + extra], title="variant")
    present = sorted({rio.REFERENCE_NAMES.get(v, v) for v in best["variant"] if v in refs})
    note = (f"Thick lines are the reference variants measured in the same run ({', '.join(present)})"
            if present else "No reference variant was measured in this run")
    note += ("; dash-dotted lines are the calibrated ceilings of the machine (runner calibrate)."
             if ceiling_handles else "; the manifest holds no calibrated ceiling for this figure.")
    note += calibration_caption(info, best["backend"].unique(), above)
    caption = (f"{subject(kernel, dtype)}: achieved {unit} against problem size, each variant at "
               f"its fastest configuration. {note}")
    return [save(fig, out_dir, figure_name("throughput", kernel, dtype), caption)]


def draw_ceilings(ax, best: pd.DataFrame, kernel: str, dtype: str, col: str, info) -> list:
    """The calibrated ceiling of each backend in the figure as a flat line over the x range;
    the CPU's at the most threads shown. Returns the legend handles."""
    ceilings = info.ceilings if info is not None else None
    if not ceilings:
        return []
    handles = []
    for backend in sorted(best["backend"].unique()):
        b = best[best["backend"] == backend]
        threads = float(b["threads"].max()) if np.isfinite(b["threads"]).any() else 1
        roofs = [ceilings.bandwidth(backend, threads) if col == "gbps"
                 else ceilings.compute(backend, dtype, threads)]
        if col == "gflops" and backend == "cuda" and (b["variant"] == "cublas_tf32").any():
            roofs.append(ceilings.compute(backend, dtype, tf32=True))  # TF32 has its own roof
        for roof, colour in zip(roofs, ["black" if backend in rio.GPU_BACKENDS else "dimgray",
                                        "darkgoldenrod"]):
            if roof is None:
                continue
            ax.axhline(roof.value, color=colour, linestyle="-.", linewidth=1.3, alpha=0.8,
                       zorder=1)
            unit = rio.METRIC_UNIT[col]
            handles.append(Line2D([], [], color=colour, linestyle="-.", linewidth=1.3,
                                  label=f"ceiling: {roof.label}, {roof.value:,.0f} {unit}"))
    return handles


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
