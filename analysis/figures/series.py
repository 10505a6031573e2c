"""Series of a figure: which points form one line, how it is labelled and drawn.

A series is keyed by every axis whose values differ among the figure's points
and that the figure does not collapse (variant, backend, kernel size K, and
e.g. threads where a figure keeps thread counts apart): two series that differ
only by K get their own colour and marker, not just a line style.  A variant
keeps its colour family in every figure (variant_styles); the series of one
variant are shades of it, each with its own marker.

Lines join the points of one series along the size axis only where every other
axis is fixed, the problem's shape included: 2048³ and 4096³ are joined, a
5000×3000×7000 problem next to them is a lone marker (or its own dotted line
when several problems share that shape).

Points whose samples did not settle (noise_warning) get a red halo, in every
figure that shows points.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from matplotlib.colors import to_rgb
from matplotlib.lines import Line2D
import numpy as np
import pandas as pd

import results_io as rio
from results_io import TIMES
from .common import BACKEND_STYLE, MARKERS, variant_styles

# Axes a series may be keyed by, beyond variant and backend, with how a value reads in a label.
SERIES_AXES = {
    "kernel_size": lambda v: f"K={rio.fmt_int(v)}",
    "threads": lambda v: f"{rio.fmt_int(v)} thread" + ("" if v == 1 else "s"),
    "grid": lambda v: f"grid {rio.grid_label(v)}",
    "block": lambda v: f"block {v}",
    "size_full": lambda v: str(v),
}

NOISE_HALO = dict(s=170, color="red", alpha=0.2, linewidths=0, zorder=1)


class Style(NamedTuple):
    colour: tuple
    marker: str
    linestyle: str


def add_series(pts: pd.DataFrame, axes=("kernel_size",)) -> pd.DataFrame:
    """`pts` with a `series` label and a `series_sort` key: the variant, its backend where the
    figure holds both, and each of `axes` whose value differs among the points."""
    pts = pts.copy()
    if "block" in axes:
        pts["block"] = [f"{rio.fmt_int(x)}{TIMES}{rio.fmt_int(y if math.isfinite(y) else 1)}"
                        if math.isfinite(x) else "" for x, y in zip(pts["block_x"], pts["block_y"])]
    label = pts["variant"].copy()
    if pts["backend"].nunique() > 1:
        label = label + " (" + pts["backend"] + ")"
    keyed = []
    for axis in axes:
        values = pts[axis].dropna()
        values = values[values != ""]
        if values.nunique() > 1:
            keyed.append(axis)
            text = pts[axis].map(lambda v: SERIES_AXES[axis](v)
                                 if v == v and v != "" else "")
            label = label + np.where(text != "", ", " + text, "")
    pts["series"] = label
    pts.attrs["series_axes"] = keyed
    return pts


def series_order(kernel: str, pts: pd.DataFrame) -> list[str]:
    """The series of `pts` in legend order: known variant order, backend, then the keyed axes."""
    order = rio.variant_order(kernel, list(pts["variant"]) + rio.KNOWN_VARIANTS.get(kernel, []))
    keyed = [a for a in pts.attrs.get("series_axes", []) if a in pts]
    first = pts.drop_duplicates("series")

    def key(r):
        vals = [r["size_x"] if a == "size_full" else r[a] for a in keyed]
        return (order.index(r["variant"]), r["backend"],
                *[(0, v) if isinstance(v, (int, float)) and v == v else (1, str(v)) for v in vals])
    return [r["series"] for _, r in sorted(first.iterrows(), key=lambda t: key(t[1]))]


def series_styles(kernel: str, pts: pd.DataFrame) -> dict[str, Style]:
    """A distinct colour and marker per series: the variant's colour and marker when it has one
    series, else shades of its colour (dark to light) and successive markers."""
    base = variant_styles(kernel, pts["variant"])
    order = series_order(kernel, pts)
    first = pts.drop_duplicates("series").set_index("series")
    members: dict[tuple, list[str]] = {}
    for s in order:
        members.setdefault((first.at[s, "variant"], first.at[s, "backend"]), []).append(s)
    # A variant with one series keeps its own marker; the series of a variant with several take
    # its marker first, then markers no other series of the figure uses (repeating only when
    # every marker is taken).
    taken = {base[v][1] for (v, _), group in members.items() if len(group) == 1}
    styles = {}
    for (variant, backend), group in members.items():
        colour, marker = base[variant]
        for i, s in enumerate(group):
            if len(group) == 1:
                c, m = colour, marker
            else:
                c = shade(colour, -0.45 + 0.9 * i / (len(group) - 1))
                free = [x for x in [marker] + MARKERS if x not in taken]
                m = free[0] if free else MARKERS[len(styles) % len(MARKERS)]
                taken.add(m)
            styles[s] = Style(c, m, BACKEND_STYLE.get(backend, "-"))
    return styles


def shade(colour, f: float) -> tuple:
    """`colour` darkened (f < 0, towards black) or lightened (f > 0, towards white) by |f|."""
    rgb = np.array(to_rgb(colour))
    rgb = rgb * (1 + f) if f < 0 else rgb + (1 - rgb) * f
    return tuple(float(c) for c in rgb)


def plot_along_size(ax, g: pd.DataFrame, x: str, y: str, style: Style, label: str,
                    linewidth: float = 1.4, markersize: float = 5) -> Line2D:
    """Draw one series: a line through the points of its main shape (the one with most points),
    hollow markers for the points of other shapes (dotted lines where one has several). Returns
    the legend handle."""
    g = g[np.isfinite(g[x]) & np.isfinite(g[y])].sort_values(x)
    counts = g["shape"].value_counts()
    main = counts.index[0] if len(counts) else ""
    for shape, part in g.groupby("shape", sort=False):
        # another shape than the series' main one: hollow markers (a problem whose time scales
        # with its volume would otherwise sit on the main line as if it belonged to it)
        other = shape != main
        ax.plot(part[x], part[y], color=style.colour, marker=style.marker,
                markersize=markersize + (1 if other else 0),
                linestyle=(":" if other else style.linestyle) if len(part) > 1 else "none",
                linewidth=linewidth, zorder=3,
                markerfacecolor="white" if other else style.colour,
                markeredgecolor=style.colour if other else "black",
                markeredgewidth=1.3 if other else 0.4)
    return Line2D([], [], color=style.colour, marker=style.marker, markersize=markersize,
                  linestyle=style.linestyle, linewidth=linewidth, markeredgecolor="black",
                  markeredgewidth=0.4, label=label)


def other_shape_handle() -> Line2D:
    """Legend entry explaining hollow markers (plot_along_size)."""
    return Line2D([], [], linestyle="", marker="o", markersize=6, markerfacecolor="white",
                  markeredgecolor="dimgray", markeredgewidth=1.3,
                  label="hollow: a problem of another shape (own tick), not on the line")


def has_other_shapes(best: pd.DataFrame) -> bool:
    """Whether some series of `best` holds problems of more than one shape."""
    return bool((best.groupby("series")["shape"].nunique() > 1).any())


def extra_handles(best: pd.DataFrame, noise) -> list:
    """Legend entries beyond the series: the noise halo, hollow markers of other shapes."""
    return [h for h in (noise, other_shape_handle() if has_other_shapes(best) else None) if h]


def mark_noisy(ax, pts: pd.DataFrame, x: str, y: str):
    """A red halo behind each noisy point; returns a legend handle, or None when none is."""
    noisy = pts[pts["noisy"].astype(bool) & np.isfinite(pts[x]) & np.isfinite(pts[y])]
    if noisy.empty:
        return None
    ax.scatter(noisy[x], noisy[y], **NOISE_HALO)
    return noise_handle()


def noise_handle() -> Line2D:
    return Line2D([], [], linestyle="", marker="o", markersize=12, markeredgewidth=0,
                  markerfacecolor=(1, 0, 0, NOISE_HALO["alpha"]),
                  label="noisy: rsd above target (noise_warning)")
