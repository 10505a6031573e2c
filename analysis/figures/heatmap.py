"""heatmap_<kernel>_<dtype>_<variant>.png: median time of one CUDA variant over
block shape (rows) x size (columns), coloured relative to the best shape at
each size so that columns compare across sizes; the best shape is framed."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
from matplotlib.colors import LogNorm
from matplotlib.patches import Rectangle
import numpy as np
import pandas as pd

import results_io as rio
from results_io import TIMES
from .common import Figure, save, size_axis_label


def heatmap_figures(sub: pd.DataFrame, kernel: str, dtype: str, out_dir: str) -> list[Figure]:
    """One heatmap per CUDA variant of one kernel and dtype (`sub`: its records)
    measured at more than one block shape, with at least one valid time."""
    out: list[Figure] = []
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
        out.append(save(fig, out_dir, name, caption))
    return out


def _fmt_ms(t: float) -> str:
    """A cell's time in ms, short enough to fit the cell (about three digits)."""
    if t >= 100:
        return f"{t:.0f}"
    if t >= 10:
        return f"{t:.1f}"
    if t >= 1:
        return f"{t:.2f}"
    return f"{t:.3g}"
