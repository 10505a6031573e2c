"""What every figure shares: the Figure record, colours and markers per
variant, legends placed outside the axes, readable log axes, size ticks, and
saving a PNG.

Kept in one place so that a variant has the same colour and marker in every
figure, and every figure labels its axes the same way.
"""

from __future__ import annotations

import math
import os
from typing import NamedTuple

import matplotlib.pyplot as plt
from matplotlib.ticker import (FixedLocator, FuncFormatter, LogLocator,
                               NullFormatter, NullLocator)
import numpy as np
import pandas as pd

import results_io as rio
from results_io import TIMES

DPI = 120
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "*", "h", "p"]
BACKEND_STYLE = {"cpu": "-", "cuda": "--", "hip": "--"}
KS_STYLES = ["-", "--", ":", "-."]


class Figure(NamedTuple):
    """One PNG written to the output directory: its file name (relative to
    that directory, as report.md links it) and the caption printed under it."""
    name: str
    caption: str


def variant_styles(kernel: str, variants) -> dict:
    """Stable colour and marker per variant of a kernel (same in every figure)."""
    order = rio.variant_order(kernel, list(variants) + rio.KNOWN_VARIANTS.get(kernel, []))
    cmap = plt.get_cmap("tab20" if len(order) > 10 else "tab10")
    return {v: (cmap(i % cmap.N), MARKERS[i % len(MARKERS)]) for i, v in enumerate(order)}


def place_legend(ax, handles=None, labels=None, title=None, anchor=(1.02, 1.0)):
    """Legend outside the axes on the right; smaller font for many entries."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    n = len(handles)
    font = "small" if n <= 8 else "x-small"
    return ax.legend(handles, labels, title=title, loc="upper left",
                     bbox_to_anchor=anchor, borderaxespad=0.0, fontsize=font,
                     title_fontsize="small", ncol=1 if n <= 18 else 2,
                     frameon=False)


def keep_legend(ax, leg) -> None:
    """Keep `leg` when the axes gets another legend.

    add_artist() clips the legend to the axes, which makes savefig's tight
    bounding box ignore it and crop away a legend placed outside the axes;
    unclipping keeps it inside the saved image.
    """
    if leg is not None:
        ax.add_artist(leg)
        leg.set_clip_on(False)


def plain_number(v: float, _pos=None) -> str:
    """Tick label without scientific notation in the usual range (0.001 .. 1e6)."""
    if v <= 0 or not math.isfinite(v):
        return ""
    if 1e-3 <= v < 1e6:
        if v >= 1000:
            return f"{v:,.0f}"
        return f"{v:.4g}"
    e = math.floor(math.log10(v) + 1e-9)
    mant = v / 10 ** e
    return f"$10^{{{e}}}$" if abs(mant - 1) < 1e-6 else f"${mant:.3g}\\times10^{{{e}}}$"


def readable_log_axis(axis, lo: float, hi: float) -> None:
    """Plain-number labels on a log axis, with enough labelled ticks to read
    values off even when the data spans less than a decade (matplotlib would
    then label a single tick, or none)."""
    decades = math.log10(hi / lo) if lo > 0 and hi > lo else 0.0
    if decades < 0.5:
        subs = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0)
    elif decades < 1.3:
        subs = (1.0, 1.5, 2.0, 3.0, 5.0, 7.0)
    elif decades < 2.5:
        subs = (1.0, 2.0, 5.0)
    else:
        subs = (1.0,)
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(plain_number))
    axis.set_minor_locator(LogLocator(base=10, subs=np.arange(2, 10)))
    axis.set_minor_formatter(NullFormatter())


def readable_log_y(ax) -> None:
    lo, hi = ax.get_ylim()  # triggers autoscaling over what is plotted
    readable_log_axis(ax.yaxis, lo, hi)


def set_size_ticks(ax, pts: pd.DataFrame) -> None:
    """Put x ticks exactly at the measured sizes, labelled with their dims."""
    ticks = pts.drop_duplicates("size_x").sort_values("size_x")
    # Sizes closer than 15 % on the log axis (511 and 512, 128 and 192×96×160) would print their
    # labels on top of each other: the second of a pair goes one line lower; a third in a row
    # keeps its tick without a label.
    labels, last, staggered = [], None, False
    for x, label in zip(ticks["size_x"], ticks["size_label"]):
        close = last is not None and x / last < 1.15
        if close and staggered:
            labels.append("")
            continue
        labels.append("\n" + label if close else label)
        staggered, last = close, x
    ax.xaxis.set_major_locator(FixedLocator(ticks["size_x"].tolist()))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels(labels)
    # Long labels (non-square sizes) or many ticks would collide: rotate.
    if len(labels) > 6 or max(len(s.strip()) for s in labels) > 5:
        plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    lo, hi = ticks["size_x"].min(), ticks["size_x"].max()
    ax.set_xlim(lo / 1.25, hi * 1.25)


def size_axis_label(kernel: str, pts: pd.DataFrame) -> str:
    square = ~pts["size_label"].str.contains(TIMES)
    if kernel == "gemm":
        return ("problem size m (m = n = k)" if square.all()
                else "problem size: (m\u00b7n\u00b7k)^(1/3), ticks m\u00d7n\u00d7k")
    if kernel == "transpose":
        return ("matrix size m (m\u00d7m elements)" if square.all()
                else "matrix size: \u221a(m\u00b7n), ticks m\u00d7n")
    if kernel == "conv2d":
        return "image size n (n\u00d7n pixels)"
    return "problem size m"


def figure_name(kind: str, kernel: str, dtype: str, *extra: str) -> str:
    """The PNG's file name: kind, kernel, dtype and any further part, the empty ones left out
    (hello has no dtype: heatmap_hello_hello.png)."""
    return "_".join(p for p in (kind, kernel, dtype, *extra) if p) + ".png"


def subject(kernel: str, dtype: str) -> str:
    """What a figure is about, for its title: "gemm (float)", or "hello" without a dtype."""
    return f"{kernel} ({dtype})" if dtype else kernel


def title(target, text: str, info, backends, **kw) -> None:
    """Title of an axes (or a figure's suptitle) with a second line naming the machine that
    measured its points (run_info.RunInfo.device_line)."""
    device = info.device_line(backends) if info is not None else ""
    text = f"{text}\n{device}" if device else text
    if hasattr(target, "suptitle"):
        target.suptitle(text, fontsize="medium", **kw)
    else:
        target.set_title(text, fontsize="medium", **kw)


def save(fig, out_dir: str, name: str, caption: str) -> Figure:
    """Write `fig` as out_dir/name and close it (pyplot keeps every open
    figure, and its memory, until then)."""
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return Figure(name, caption)

