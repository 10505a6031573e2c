"""scaling_<kernel>_<dtype>.png: the strong scaling of the OpenMP variants
measured at two or more thread counts: speedup (left) and parallel efficiency
(right) against the threads axis, each variant against its own time at one
thread, as HPC papers plot them:

    S(p) = T(1) / T(p)        E(p) = T(1) / (p * T(p))  (100 % at one thread)

E is the records' `scaling_efficiency` where the runner filled it (a variant
that also ran at one thread on the same problem); runs of earlier releases, or
a series without a one-thread point, are computed here against the fewest
threads p0 measured: T(p0) / ((p / p0) * T(p)).  The seed reports' figures
against the config's baseline (another algorithm, e.g. omp_serial) are the
records' `speedup` and `efficiency`, drawn in speedup_<kernel>_<dtype>.png."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
import numpy as np
import pandas as pd

import results_io as rio
from .common import (Figure, figure_name, keep_legend, place_legend, plain_number, save,
                     subject, title)
from .series import NOISE_HALO, add_series, noise_handle, series_order, series_styles


def scaling_figure(sub: pd.DataFrame, kernel: str, dtype: str, out_dir: str,
                   info=None) -> list[Figure]:
    """The scaling figure of one kernel and dtype (`sub`: its records); none
    when no CPU variant was measured at two or more thread counts."""
    sc = scaling_table(sub)
    if sc.empty:
        return []
    baseline = sc["baseline"].iloc[0]
    sizes = sc.drop_duplicates("size_full").sort_values(["size_x", "size_full"])["size_full"].tolist()
    cmap = plt.get_cmap("viridis")
    size_colour = {s: cmap(0.1 + 0.75 * i / max(1, len(sizes) - 1)) for i, s in enumerate(sizes)}
    styles = series_styles(kernel, sc)
    series_list = series_order(kernel, sc)
    fig, (ax_s, ax_e) = plt.subplots(1, 2, figsize=(11, 4.6))
    for (series, size), g in sc.groupby(["series", "size_full"]):
        g = g.sort_values("threads")
        st = styles[series]
        kw = dict(color=size_colour[size], marker=st.marker, markersize=6,
                  linestyle=st.linestyle, linewidth=1.4, markeredgecolor="black",
                  markeredgewidth=0.4)
        ax_s.plot(g["threads"], g["speedup_calc"], **kw)
        ax_e.plot(g["threads"], 100 * g["efficiency_calc"], **kw)
    over = sc[sc["oversubscribed"] == True] if "oversubscribed" in sc else sc.iloc[0:0]  # noqa: E712
    noisy = sc[sc["noisy"]]
    for ax, col, scale in ((ax_s, "speedup_calc", 1), (ax_e, "efficiency_calc", 100)):
        if not over.empty:
            ax.scatter(over["threads"], scale * over[col], s=140, facecolors="none",
                       edgecolors="red", linewidths=1.3, zorder=4)
        if not noisy.empty:
            ax.scatter(noisy["threads"], scale * noisy[col], **NOISE_HALO)
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
    if p0 == 1:
        against = "its own run at 1 thread"
    elif p0 is not None:
        against = f"its own run at {rio.fmt_int(p0)} threads"
    else:
        against = "its own run at the fewest threads"
    ax_s.set_ylabel(f"speedup over {against} (\u00d7)")
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
    ax_s.set_title("strong-scaling speedup T(1) / T(p)" if p0 == 1 else "strong-scaling speedup",
                   fontsize="medium")
    ax_e.set_title("parallel efficiency T(1) / (p \u00b7 T(p))" if p0 == 1
                   else "parallel efficiency", fontsize="medium")
    title(fig, f"{subject(kernel, dtype)}: OpenMP scaling", info, ["cpu"])
    # Two legends: colour = size, marker/line = series.
    size_handles = [Line2D([], [], color=size_colour[s], linewidth=2.5) for s in sizes]
    var_handles = [Line2D([], [], color="black", marker=styles[s].marker,
                          linestyle=styles[s].linestyle) for s in series_list]
    var_handles.append(Line2D([], [], color="grey", linewidth=2.5, alpha=0.4))
    var_labels = series_list + ["ideal"]
    if not over.empty:
        var_handles.append(Line2D([], [], linestyle="", marker="o", markersize=10,
                                  markerfacecolor="none", markeredgecolor="red"))
        var_labels.append("more threads than cores")
    if not noisy.empty:
        var_handles.append(noise_handle())
        var_labels.append(var_handles[-1].get_label())
    keep_legend(ax_e, place_legend(ax_e, size_handles, sizes, title="size"))
    place_legend(ax_e, var_handles, var_labels, title="variant",
                 anchor=(1.02, 0.98 - 0.085 * (len(sizes) + 2)))
    fig.tight_layout()
    if p0 == 1:
        how = ("strong scaling of each OpenMP variant against its own run at one thread: speedup "
               "T(1)/T(p) and parallel efficiency T(1)/(p\u00b7T(p)) (the records' "
               "scaling_efficiency; 100 % at one thread)")
    else:
        how = ("strong scaling of each OpenMP variant against its own run at the fewest threads "
               "p\u2080: speedup T(p\u2080)/T(p) and parallel efficiency speedup/(p/p\u2080)")
    how += (f"; the seed reports' speedup and efficiency over the baseline {baseline} are in "
            "the speedup figure" if baseline else "")
    caption = (f"{subject(kernel, dtype)}: {how}; colour = problem size, marker and line style "
               "= variant; a red halo marks a noisy point (noise_warning).")
    return [save(fig, out_dir, figure_name("scaling", kernel, dtype), caption)]


def scaling_table(sub: pd.DataFrame) -> pd.DataFrame:
    """Strong-scaling speedup and efficiency of the CPU variants run at several thread counts.

    Per series (variant and every other axis) and size: S(p) = T(p0) / T(p) against the same
    series' fewest threads p0 (normally 1), efficiency = S(p) / (p / p0); where p0 is 1 and the
    runner recorded `scaling_efficiency`, that column is the efficiency (the same figure,
    computed from the unrounded medians). Column `baseline` names the config's baseline
    variant, only for the caption: nothing here is measured against it.
    """
    pts = sub[sub["ok"] & (sub["backend"] == "cpu") & np.isfinite(sub["threads"])]
    if pts.empty:
        return pts
    pts = add_series(pts)
    baseline = rio.baseline_variant(sub)
    rows = []
    for _, g in pts.groupby(["series", "size_full"]):
        # several records per thread count (other axes, e.g. OMP binding): keep the fastest
        g = g.sort_values("time_ms_median").drop_duplicates("threads").sort_values("threads")
        if len(g) < 2:
            continue
        p0, t0 = g["threads"].iloc[0], g["time_ms_median"].iloc[0]
        g = g.assign(p0=p0, speedup_calc=t0 / g["time_ms_median"])
        g["efficiency_calc"] = g["speedup_calc"] / (g["threads"] / p0)
        if p0 == 1 and "scaling_efficiency" in g:
            recorded = g["scaling_efficiency"].astype(float)
            g["efficiency_calc"] = recorded.where(np.isfinite(recorded), g["efficiency_calc"])
        rows.append(g)
    out = pd.concat(rows) if rows else pts.iloc[0:0]
    out.attrs = pts.attrs
    return out.assign(baseline=baseline)
