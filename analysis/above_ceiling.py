"""Points above their calibrated ceiling, and why: no percentage above 100 is shown without its
reason, in a table or on a figure (the project's issue 34: a report of a loaded machine said
228 % "of compute ceiling" without a word).

The reason is the record's `ceiling_note`, which the runner writes for every pct_peak_* above 100
(a ceiling measured under load, a stale one, a problem that fits in a cache); records of earlier
releases get what their calibration says of itself (ceilings.CalibrationState.above_note).
"""

from __future__ import annotations

from matplotlib.lines import Line2D
import numpy as np
import pandas as pd

ABOVE_STYLE = dict(marker="^", s=150, facecolors="none", edgecolors="darkorange", linewidths=1.6,
                   zorder=5)


def ceiling_notes(df: pd.DataFrame, info=None) -> pd.Series:
    """Per record: why a pct_peak_* of it is above 100, or "" when none is."""
    flops = pd.to_numeric(df.get("pct_peak_flops"), errors="coerce").astype(float) \
        if "pct_peak_flops" in df else pd.Series(np.nan, index=df.index)
    bw = pd.to_numeric(df.get("pct_peak_bw"), errors="coerce").astype(float) \
        if "pct_peak_bw" in df else pd.Series(np.nan, index=df.index)
    recorded = df["ceiling_note"].fillna("").astype(str) if "ceiling_note" in df \
        else pd.Series("", index=df.index)
    ceilings = info.ceilings if info is not None else None
    notes = []
    for i in df.index:
        above_f, above_b = flops[i] > 100, bw[i] > 100
        if not (above_f or above_b):
            notes.append("")
            continue
        if recorded[i].strip() and recorded[i].strip().lower() != "nan":
            notes.append(recorded[i].strip())
            continue
        which = ("compute and bandwidth ceilings" if above_f and above_b
                 else "compute ceiling" if above_f else "bandwidth ceiling")
        state = ceilings.state(df.at[i, "backend"]) if ceilings else None
        notes.append(state.above_note(which) if state
                     else f"above the {which} of a calibration the manifest does not describe")
    return pd.Series(notes, index=df.index, dtype=str)


class Footnotes:
    """Numbered reasons for the cells of a table: the same reason, the same number."""

    def __init__(self):
        self.notes: list[str] = []

    def mark(self, note: str) -> str:
        if not note:
            return ""
        if note not in self.notes:
            self.notes.append(note)
        return f" [{self.notes.index(note) + 1}]"

    def text(self) -> str:
        if not self.notes:
            return ""
        return "Above 100 % of a ceiling: " + " ".join(
            f"[{i + 1}] {n}." for i, n in enumerate(self.notes))


def mark_above(ax, pts: pd.DataFrame, x: str, y: str, info=None, roof=None):
    """An orange triangle around each point above its ceiling (its pct_peak_* above 100, or, on a
    roofline, above the roof drawn there: `roof`, a Series of the roof's y at each point); returns
    a legend handle naming the reasons, or None when no point is above."""
    notes = ceiling_notes(pts, info)
    above = notes != ""
    if roof is not None:
        drawn = roof.reindex(pts.index).astype(float)
        above = above | (np.isfinite(drawn) & (pts[y].astype(float) > drawn * 1.0001))
    sel = pts[above & np.isfinite(pts[x]) & np.isfinite(pts[y])]
    if sel.empty:
        return None
    ax.scatter(sel[x], sel[y], **ABOVE_STYLE)
    reasons = sorted({_short(n) for n in notes[sel.index] if n}) or ["above the roof drawn"]
    return Line2D([], [], linestyle="", marker="^", markersize=11, markerfacecolor="none",
                  markeredgecolor="darkorange", markeredgewidth=1.6,
                  label="above its calibrated ceiling: " + "; ".join(reasons))


def _short(note: str) -> str:
    """The kind of a note's reason, as short as a legend entry must be."""
    if "measured under load" in note:
        return "ceiling measured under load"
    if "stale" in note.split(":")[0]:
        return "stale ceiling"
    if " cache" in note and "fit in" in note:
        return "fits in a cache"
    return "unexplained: runner calibrate --check"


def ceiling_flag(info, backends) -> str:
    """A figure title's flag when its ceilings are suspect: measured under load, or stale."""
    ceilings = info.ceilings if info is not None else None
    states = [ceilings.state(b) for b in sorted(set(backends))] if ceilings else []
    flags = []
    if any(s and s.state == "provisional" for s in states):
        flags.append("ceilings measured under load")
    if any(s and s.stale for s in states):
        flags.append("stale ceilings")
    return f" [{', '.join(flags)}]" if flags else ""

def calibration_caption(info, backends, above) -> str:
    """What a figure's caption says of its ceilings: which calibration, measured when and how,
    and, where points are above them, that the triangles mark them."""
    ceilings = info.ceilings if info is not None else None
    if not ceilings:
        return ""
    states = [ceilings.state(b) for b in sorted(set(backends))]
    text = "".join(f" Ceilings of {s.text()}." for s in states if s)
    if above is not None:
        text += (" An orange triangle marks a point above its ceiling; the tables give each "
                 "one's reason (ceiling_note).")
    return text
