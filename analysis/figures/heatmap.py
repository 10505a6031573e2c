"""heatmap_<kernel>_<dtype>_<variant>.png: median time of one GPU variant (CUDA or HIP) over
its launch configurations, coloured relative to the best configuration at each
size so that sizes compare; the best cell of each size is framed.

Rows are block shapes.  Columns are sizes, or, when the variant was swept over
the grid axis (naive_1d, hello), the grid values, one panel per size: a grid
sweep never collapses into one cell.  Every cell without a time says why: the
point's status (failed, skipped, invalid), or "not run" where the config has no
such point."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
from matplotlib.colors import LogNorm
from matplotlib.patches import Rectangle
import numpy as np
import pandas as pd

import results_io as rio
from results_io import TIMES
from .common import Figure, figure_name, save, size_axis_label, subject, title

NOT_RUN = "not run"


def heatmap_figures(sub: pd.DataFrame, kernel: str, dtype: str, out_dir: str,
                    info=None) -> list[Figure]:
    """One heatmap per GPU variant of one kernel and dtype (`sub`: its records)
    measured at more than one block shape or grid size, with at least one valid time."""
    out: list[Figure] = []
    gpu = sub[sub["backend"].isin(rio.GPU_BACKENDS) & np.isfinite(sub["block_x"])].copy()
    for variant in rio.variant_order(kernel, gpu["variant"]):
        v = gpu[gpu["variant"] == variant].copy()
        v["shape"] = list(zip(v["block_x"], v["block_y"].fillna(1)))
        grids = sorted(v["grid"].dropna().unique(), key=_grid_order)
        by_grid = len(grids) > 1
        if (v["shape"].nunique() < 2 and not by_grid) or not v["ok"].any():
            continue
        v = v.sort_values(["kernel_size", "size_x", "size_full"], na_position="first")
        sizes = list(dict.fromkeys(v["size_full"]))
        multi_k = v["kernel_size"].nunique() > 1
        size_text = {r.size_full: (r.size_full if multi_k else r.size_label) or ""
                     for r in v.itertuples()}
        if by_grid:
            # one panel per size: block shapes over grid values
            panels = [(size_text[s], v[v["size_full"] == s], "grid") for s in sizes]
        else:
            panels = [("", v, "size_full")]
        panels = [p for p in panels if p[1]["ok"].any() or len(panels) == 1]
        # A size measured at one configuration alone is one cell that compares with nothing:
        # left out where other sizes have a sweep (seed 003: its q sweep at 3 sizes and one
        # launch at 16 others drew 16 panels, 13 of them one cell wide). The time and
        # throughput figures have those points.
        swept = [p for p in panels if len(p[1]) > 1]
        single_sizes = len(panels) - len(swept) if swept else 0
        if swept:
            panels = swept
        vmax = max(_worst_ratio(p[1]) for p in panels)
        widths = [max(1, p[1][p[2]].nunique()) for p in panels]
        rows = max(p[1]["shape"].nunique() for p in panels)
        fig, axes = plt.subplots(1, len(panels), squeeze=False, layout="constrained",
                                 figsize=(max(5.5, 1.15 * sum(widths) + 1.6 * len(panels) + 2.0),
                                          max(3.0, 0.55 * rows + 2.4)),
                                 gridspec_kw={"width_ratios": widths})
        im = None
        for ax, (label, cells, col_axis) in zip(axes[0], panels):
            im = _panel(ax, cells, col_axis, size_text, vmax)
            if col_axis == "grid":
                ax.set_xlabel("grid (blocks; auto = one thread per output)")
                if label:
                    ax.set_title(f"size {label}", fontsize="small")
            else:
                ax.set_xlabel(_columns_label(kernel, cells, multi_k))
        axes[0][0].set_ylabel("block shape (x \u00d7 y threads)")
        name = variant if variant == kernel else f"{kernel} {variant}"
        what = "per block shape and grid" if by_grid else "per block shape"
        title(fig, f"{name}{f' ({dtype})' if dtype else ''}: median time (ms) {what} "
              "(frame = best)", info, sorted(set(v["backend"])))
        cb = fig.colorbar(im, ax=list(axes[0]))
        # ticks at least an eighth of the scale apart: 1.1x and 1.25x do not crowd a 500x scale
        ticks, gap = [], math.log(vmax) / 8
        for t in (1, 1.1, 1.25, 1.5, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000):
            if t <= vmax and (not ticks or math.log(t / ticks[-1]) >= gap):
                ticks.append(t)
        cb.set_ticks(ticks)
        cb.set_ticklabels([f"{t:g}\u00d7" for t in ticks])
        cb.ax.minorticks_off()
        cb.set_label("time / best time at this size")
        columns = "grid size (one panel per size)" if by_grid else "size (columns)"
        caption = (f"{subject(kernel, dtype)}, GPU variant {variant}: median time in ms for every "
                   f"block shape (rows) and {columns}. Colour is the time relative to "
                   "the fastest configuration at that size; the blue frame marks the best. "
                   "A grey cell has no valid time and says why: the point's status, or "
                   f"'{NOT_RUN}' where the config has no such point.")
        if single_sizes:
            caption += (f" {single_sizes} size(s) measured at a single configuration are not "
                        "drawn here (see the time and throughput figures).")
        out.append(save(fig, out_dir, figure_name("heatmap", kernel, dtype, variant), caption))
    return out


def _panel(ax, cells: pd.DataFrame, col_axis: str, size_text: dict, vmax: float):
    """One heatmap: block shapes (rows) over `col_axis` values (columns)."""
    shapes = sorted(cells["shape"].unique(), key=lambda s: (s[0] * s[1], s[0]))
    if col_axis == "grid":
        cols = sorted(cells["grid"].dropna().unique(), key=_grid_order)
        col_labels = [rio.grid_label(g) for g in cols]
        col_of = cells["grid"]
    else:
        cols = list(dict.fromkeys(cells["size_full"]))
        col_labels = [size_text[c] for c in cols]
        col_of = cells["size_full"]
    grid = np.full((len(shapes), len(cols)), np.nan)
    status = np.full(grid.shape, NOT_RUN, dtype=object)
    for r, c in zip(cells.itertuples(), col_of):
        if c not in cols:
            continue
        i, j = shapes.index(r.shape), cols.index(c)
        if r.ok:
            # several records per cell (other axes): show the fastest
            grid[i, j] = np.fmin(grid[i, j], r.time_ms_median)
        elif not np.isfinite(grid[i, j]):
            status[i, j] = r.status or "no status"
    # relative to the best configuration of the size: the whole panel (grid panels hold one
    # size), or the column (size columns)
    best = (np.nanmin(grid) if col_axis == "grid" and np.isfinite(grid).any()
            else np.nanmin(np.where(np.isfinite(grid), grid, np.inf), axis=0))
    rel = grid / best
    cmap = plt.get_cmap("YlOrRd").copy()
    cmap.set_bad("#d9d9d9")
    im = ax.imshow(np.ma.masked_invalid(rel), cmap=cmap, aspect="auto",
                   norm=LogNorm(vmin=1.0, vmax=vmax))
    fs = 8 if len(cols) <= 6 else 7
    for i in range(len(shapes)):
        for j in range(len(cols)):
            if np.isfinite(grid[i, j]):
                light = rel[i, j] < math.sqrt(vmax)
                ax.text(j, i, _fmt_ms(grid[i, j]), ha="center", va="center", fontsize=fs,
                        color="black" if light else "white",
                        fontweight="bold" if rel[i, j] == 1 else "normal")
            else:
                ax.text(j, i, status[i, j], ha="center", va="center", fontsize=fs - 1,
                        color="#555555", style="italic")
    # frame the best cell of each size (inset so that neighbouring frames stay apart)
    if col_axis == "grid":
        best_cells = [np.unravel_index(np.nanargmin(grid), grid.shape)] if np.isfinite(grid).any() else []
    else:
        best_cells = [(int(np.nanargmin(grid[:, j])), j) for j in range(len(cols))
                      if np.isfinite(grid[:, j]).any()]
    for i, j in best_cells:
        ax.add_patch(Rectangle((j - 0.44, i - 0.42), 0.88, 0.84, fill=False,
                               edgecolor="#1f4e9c", linewidth=2.2))
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels(col_labels)
    if max((len(s) for s in col_labels), default=0) > 6 or len(cols) > 8:
        plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    ax.set_yticks(range(len(shapes)))
    ax.set_yticklabels([f"{rio.fmt_int(a)}{TIMES}{rio.fmt_int(b)}" for a, b in shapes])
    return im


def _columns_label(kernel: str, cells: pd.DataFrame, multi_k: bool) -> str:
    """The size axis of a heatmap: its columns are the sizes as written, not a scale."""
    if multi_k:
        return "problem size, kernel size K"
    if not cells["size_label"].str.contains(TIMES).any():
        return size_axis_label(kernel, cells)
    return {"gemm": "problem size m\u00d7n\u00d7k",
            "transpose": "matrix size m\u00d7n"}.get(kernel, "problem size")


def _worst_ratio(cells: pd.DataFrame) -> float:
    """The colour scale's top: the slowest ok time over the best at its size (at least 1.5)."""
    ok = cells[cells["ok"]]
    if ok.empty:
        return 2.0
    best = ok.groupby("size_full", dropna=False)["time_ms_median"].transform("min")
    return max(1.5, float((ok["time_ms_median"] / best).max()))


def _grid_order(g) -> tuple:
    """Grid values in increasing order, auto (0) last."""
    return (1, 0) if g == 0 else (0, g)


def _fmt_ms(t: float) -> str:
    """A cell's time in ms, short enough to fit the cell (about three digits)."""
    if t >= 100:
        return f"{t:.0f}"
    if t >= 10:
        return f"{t:.1f}"
    if t >= 1:
        return f"{t:.2f}"
    return f"{t:.3g}"
