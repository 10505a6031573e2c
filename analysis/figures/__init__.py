"""The report's figures: one module per kind, named after its PNG files.

    time_<kernel>_<dtype>.png              time.py        time_figure
    throughput_<kernel>_<dtype>.png        throughput.py  throughput_figure
    scaling_<kernel>_<dtype>.png           scaling.py     scaling_figure
    heatmap_<kernel>_<dtype>_<variant>.png heatmap.py     heatmap_figures
    roofline_<kernel>_<dtype>.png          roofline.py    roofline_figure

Each function takes the records of one kernel and dtype, writes its PNG(s) to
the output directory and returns what it drew as a list of Figure (file name,
caption): empty when the run has no data for that figure.  Colours, legends,
axes and saving are shared in common.py.  docs/analysis.md says what each
figure shows.
"""

from __future__ import annotations

import matplotlib

# Before pyplot is imported (by the modules below): headless, cluster nodes
# and CI have no display.
matplotlib.use("Agg")

import pandas as pd  # noqa: E402

from .common import Figure  # noqa: E402
from .heatmap import heatmap_figures  # noqa: E402
from .roofline import roofline_figure  # noqa: E402
from .scaling import scaling_figure  # noqa: E402
from .throughput import throughput_figure  # noqa: E402
from .time import time_figure  # noqa: E402

__all__ = ["Figure", "draw_figures", "heatmap_figures", "roofline_figure",
           "scaling_figure", "throughput_figure", "time_figure"]


def draw_figures(run: pd.DataFrame, sub: pd.DataFrame, kernel: str, dtype: str,
                 out_dir: str) -> list[Figure]:
    """Every figure of one kernel and dtype, in the order the report shows them.

    `sub` holds the records of that kernel and dtype, `run` all records (the
    roofline takes its roofs from the whole run).  `dtype` is the label used
    in file names and titles ("na" for records without one).
    """
    return (time_figure(sub, kernel, dtype, out_dir)
            + throughput_figure(sub, kernel, dtype, out_dir)
            + scaling_figure(sub, kernel, dtype, out_dir)
            + heatmap_figures(sub, kernel, dtype, out_dir)
            + roofline_figure(sub, kernel, dtype, out_dir, run))
