"""The report's figures: one module per kind, named after its PNG files.

    time_<kernel>_<dtype>.png              time.py        time_figure
    throughput_<kernel>_<dtype>.png        throughput.py  throughput_figure
    speedup_<kernel>_<dtype>.png           speedup.py     speedup_figure
    scaling_<kernel>_<dtype>.png           scaling.py     scaling_figure
    grid_<kernel>_<dtype>.png              grid.py        grid_figure
    heatmap_<kernel>_<dtype>_<variant>.png heatmap.py     heatmap_figures
    roofline_<kernel>_<dtype>.png          roofline.py    roofline_figure

(the dtype is left out of the name for kernels without one: hello).  Each
function takes the records of one kernel and dtype and the run's RunInfo (the
machine's names for titles, the calibrated ceilings), writes its PNG(s) to the
output directory and returns what it drew as a list of Figure (file name,
caption): empty when the run has no data for that figure.  Legends, axes,
titles and saving are shared in common.py; series, their styles and lines in
series.py.  docs/analysis.md says what each figure shows.
"""

from __future__ import annotations

import matplotlib

# Before pyplot is imported (by the modules below): headless, cluster nodes
# and CI have no display.
matplotlib.use("Agg")

import pandas as pd  # noqa: E402

from .common import Figure  # noqa: E402
from .grid import grid_figure  # noqa: E402
from .heatmap import heatmap_figures  # noqa: E402
from .roofline import roofline_figure  # noqa: E402
from .scaling import scaling_figure  # noqa: E402
from .speedup import speedup_figure  # noqa: E402
from .throughput import throughput_figure  # noqa: E402
from .time import time_figure  # noqa: E402

__all__ = ["Figure", "draw_figures", "grid_figure", "heatmap_figures", "roofline_figure",
           "scaling_figure", "speedup_figure", "throughput_figure", "time_figure"]

FIGURES = [time_figure, throughput_figure, speedup_figure, scaling_figure, grid_figure,
           heatmap_figures, roofline_figure]


def draw_figures(sub: pd.DataFrame, kernel: str, dtype: str, out_dir: str,
                 info=None) -> list[Figure]:
    """Every figure of one kernel and dtype, in the order the report shows them.

    `sub` holds the records of that kernel and dtype; `dtype` is empty for
    records without one; `info` is the run's run_info.RunInfo.
    """
    made: list[Figure] = []
    for draw in FIGURES:
        made += draw(sub, kernel, dtype, out_dir, info)
    return made
