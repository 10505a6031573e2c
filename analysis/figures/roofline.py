"""roofline_<kernel>_<dtype>.png: achieved GFLOP/s against arithmetic intensity
(FLOP/byte), best configuration per variant and size, under the roofs of the
machine calibrated by `runner calibrate` (manifest.json "calibration"), per
backend: the copy bandwidth as the slope, the FMA peak (GPU) or OpenBLAS GEMM
(CPU, at the most threads shown) of the dtype as the flat roof.  Never the
run's own best points: those bound nothing."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D
import numpy as np
import pandas as pd

from above_ceiling import calibration_caption, ceiling_flag, mark_above
import results_io as rio
from .common import (BACKEND_STYLE, Figure, figure_name, keep_legend, place_legend,
                     readable_log_axis, readable_log_y, save, subject, title)
from .series import add_series, mark_noisy, series_order, series_styles


def roofline_figure(sub: pd.DataFrame, kernel: str, dtype: str, out_dir: str,
                    info=None) -> list[Figure]:
    """The roofline of one kernel and dtype (`sub`: its records); none when no
    point has a positive GFLOP/s and an arithmetic intensity."""
    if not (np.isfinite(sub["gflops"]) & (sub["gflops"] > 0)).any():
        return []
    pts = sub[sub["ok"] & np.isfinite(sub["gflops"]) & (sub["gflops"] > 0)].copy()
    pts["ai"] = rio.arithmetic_intensity(pts)
    pts = pts[np.isfinite(pts["ai"]) & (pts["ai"] > 0)]
    if pts.empty:
        return []
    pts = add_series(pts)
    best = rio.best_per(pts, ["series", "size_full"])
    best.attrs = pts.attrs
    styles = series_styles(kernel, best)
    fig, ax = plt.subplots(figsize=(8.5, 5.4))
    handles = []
    for series in series_order(kernel, best):
        g = best[best["series"] == series]
        st = styles[series]
        ax.scatter(g["ai"], g["gflops"], color=st.colour, marker=st.marker, s=36,
                   edgecolors="black", linewidths=0.4, zorder=3)
        handles.append(Line2D([], [], color=st.colour, marker=st.marker, linestyle="",
                              markeredgecolor="black", markeredgewidth=0.4, label=series))
    noise = mark_noisy(ax, best, "ai", "gflops")
    if noise:
        handles.append(noise)
    ai_lo, ai_hi = best["ai"].min() / 3, best["ai"].max() * 3
    y_lo, y_hi = best["gflops"].min() / 2, best["gflops"].max() * 2
    roofs = []
    for backend in sorted(best["backend"].unique()):
        b = best[best["backend"] == backend]
        roofs += backend_roofs(info, backend, dtype, b)
    for _, bw, peak, _ in roofs:
        if bw and peak:
            ridge = peak.value / bw.value
            ai_lo, ai_hi = min(ai_lo, ridge / 3), max(ai_hi, ridge * 3)
        if peak:
            y_hi = max(y_hi, peak.value * 2)
    x = np.logspace(math.log10(ai_lo), math.log10(ai_hi), 200)
    roof_handles = []
    for backend, bw, peak, tf32 in roofs:
        style = BACKEND_STYLE.get(backend, "-")
        if bw:
            y = x * bw.value if not peak else np.minimum(x * bw.value, peak.value)
            h, = ax.plot(x, y, color="black", linestyle=style, linewidth=1.6, alpha=0.8,
                         label=f"{backend} bandwidth: {bw.value:,.0f} GB/s ({bw.label})")
            roof_handles.append(h)
        for roof, colour in ((peak, "dimgray"), (tf32, "darkgoldenrod")):
            if roof:
                y_hi = max(y_hi, roof.value * 2)
                h, = ax.plot(x, np.full_like(x, roof.value), color=colour, linestyle=style,
                             linewidth=1.0, alpha=0.8,
                             label=f"{backend} compute: {roof.value:,.0f} GFLOP/s ({roof.label})")
                roof_handles.append(h)
    # A point above the roof drawn (or above its own thread count's ceiling) is marked, never
    # left to look like a kernel that beats the machine.
    roof_at = pd.Series(np.nan, index=best.index, dtype=float)
    for backend, bw, peak, tf32 in roofs:
        on = best["backend"] == backend
        y = np.full(int(on.sum()), np.inf)
        if bw:
            y = np.minimum(y, best.loc[on, "ai"].astype(float).values * bw.value)
        top = max([r.value for r in (peak, tf32) if r] or [np.inf])
        roof_at[on] = np.minimum(y, top)
    above = mark_above(ax, best, "ai", "gflops", info, roof=roof_at.where(np.isfinite(roof_at)))
    if above:
        handles.append(above)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(ai_lo, ai_hi)
    ax.set_ylim(y_lo, y_hi)  # headroom above the roof
    readable_log_axis(ax.xaxis, ai_lo, ai_hi)
    readable_log_y(ax)
    ax.set_xlabel("arithmetic intensity (FLOP/byte, log scale)")
    ax.set_ylabel("achieved GFLOP/s (log scale)")
    what = ("roofline under the calibrated ceilings" if roof_handles
            else "achieved GFLOP/s (no calibrated ceilings in manifest.json)")
    title(ax, f"{subject(kernel, dtype)}: {what}{ceiling_flag(info, best['backend'].unique())}",
          info, best["backend"].unique())
    ax.grid(True, which="major", alpha=0.3)
    leg = place_legend(ax, handles, [h.get_label() for h in handles],
                       title="variant (best config per size)")
    if roof_handles:
        keep_legend(ax, leg)
        ax.legend(roof_handles, [h.get_label() for h in roof_handles], loc="upper center",
                  bbox_to_anchor=(0.5, -0.13), fontsize="small", frameon=False,
                  title="calibrated ceilings (runner calibrate)", title_fontsize="small")
        roofs_note = ("The roofs are the machine's ceilings measured by runner calibrate and "
                      "recorded in manifest.json: the slope is the copy bandwidth, the flat "
                      "roof the FMA peak of the dtype (GPU) or OpenBLAS GEMM at the most "
                      "threads shown (CPU); cublas_tf32 has the TF32 cuBLAS roof.")
    else:
        roofs_note = ("No roofs: the manifest holds no calibrated ceilings for these points "
                      "(runner calibrate measures them; a run's own best points are not "
                      "ceilings).")
    caption = (f"{subject(kernel, dtype)}: each variant at its best configuration per size, "
               "placed by arithmetic intensity (FLOP per byte: recorded arith_intensity, else "
               "GFLOP/s \u00f7 GB/s, else a compulsory-traffic model) and achieved GFLOP/s. "
               + roofs_note + calibration_caption(info, best["backend"].unique(), above))
    return [save(fig, out_dir, figure_name("roofline", kernel, dtype), caption)]


def backend_roofs(info, backend: str, dtype: str, pts: pd.DataFrame) -> list:
    """[(backend, bandwidth roof, compute roof, TF32 roof)] of one backend from the calibrated
    ceilings, or [] without them. The CPU's roofs are those of the most threads among `pts`."""
    ceilings = info.ceilings if info is not None else None
    if not ceilings or not ceilings.has(backend):
        return []
    threads = float(pts["threads"].max()) if np.isfinite(pts["threads"]).any() else 1
    bw = ceilings.bandwidth(backend, threads)
    peak = ceilings.compute(backend, dtype, threads)
    tf32 = (ceilings.compute(backend, dtype, tf32=True)
            if backend == "cuda" and (pts["variant"] == "cublas_tf32").any() else None)
    if not (bw or peak or tf32):
        return []
    return [(backend, bw, peak, tf32)]
