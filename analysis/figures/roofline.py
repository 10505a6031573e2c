"""roofline_<kernel>_<dtype>.png: achieved GFLOP/s against arithmetic intensity
(FLOP/byte), best configuration per variant and size, under the bandwidth and
compute roofs measured in the same run, per backend."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import results_io as rio
from .common import (BACKEND_STYLE, Figure, keep_legend, marker_face, place_legend,
                     readable_log_axis, readable_log_y, save, series_labels, series_sort,
                     variant_styles)


def roofline_figure(sub: pd.DataFrame, kernel: str, dtype: str, out_dir: str,
                    run: pd.DataFrame) -> list[Figure]:
    """The roofline of one kernel and dtype (`sub`: its records); none when no
    point has a positive GFLOP/s and an arithmetic intensity.

    The roofs come from `run`, every record of the run, whichever kernel the
    figure shows: the bandwidth roof is the copy variant's best GB/s and the
    compute roof gemm's vendor library's best GFLOP/s (see run_ceilings).
    """
    if not (np.isfinite(sub["gflops"]) & (sub["gflops"] > 0)).any():
        return []
    pts = sub[sub["ok"] & np.isfinite(sub["gflops"]) & (sub["gflops"] > 0)].copy()
    pts["ai"] = rio.arithmetic_intensity(pts)
    pts = pts[np.isfinite(pts["ai"]) & (pts["ai"] > 0)]
    if pts.empty:
        return []
    pts["series"] = series_labels(pts)
    best = rio.best_per(pts, ["series", "size_full"])
    styles = variant_styles(kernel, best["variant"])
    fig, ax = plt.subplots(figsize=(8.5, 5.4))
    for series, g in sorted(best.groupby("series"), key=lambda t: series_sort(kernel, t[1])):
        colour, marker = styles[g["variant"].iloc[0]]
        face = marker_face(g, best, colour, scatter=True)
        ax.scatter(g["ai"], g["gflops"], facecolors=face, marker=marker, s=36,
                   edgecolors="black" if face is colour else colour,
                   linewidths=0.4 if face is colour else 1.4, label=series, zorder=3)
    ai_lo, ai_hi = best["ai"].min() / 3, best["ai"].max() * 3
    y_lo, y_hi = best["gflops"].min() / 2, best["gflops"].max() * 2
    roof_handles = []
    for backend in sorted(best["backend"].unique()):
        bw, peak = run_ceilings(run, backend, dtype)
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
    return [save(fig, out_dir, f"roofline_{kernel}_{dtype}.png", caption)]


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
