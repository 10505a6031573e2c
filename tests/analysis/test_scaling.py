"""The scaling figures show strong scaling as HPC readers expect it: each OpenMP variant
against its own time at one thread, T(1) / (p * T(p)), so 100 % at one thread; the seed
reports' efficiency over the baseline (another algorithm) keeps its own name in the speedup
figure (the project's issue 34: 2800 % at one thread for a transpose, 500 % for a GEMM).

Figures are read as drawn (test_report_truth.build records savefig)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import unittest

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from test_report_truth import (FIXTURES, build, build_dir, legend_entries, records,  # noqa: E402
                               titles)


def efficiency_lines(fig):
    """(threads, efficiency %) of every data line of a scaling figure's right panel."""
    ax = fig.axes[1]
    out = []
    for line in ax.get_lines():
        x = np.asarray(line.get_xdata(), dtype=float)
        y = np.asarray(line.get_ydata(), dtype=float)
        if len(x) >= 2 and line.get_marker() not in (None, "", "None"):
            out.append((x, y))
    return out


class StrongScalingTest(unittest.TestCase):
    def test_efficiency_is_100_percent_at_one_thread(self):
        for fixture in ("cpu_run", "synthetic_cpu"):
            figs, _ = build(fixture)
            scaling = sorted(n for n in figs if n.startswith("scaling_"))
            self.assertTrue(scaling, fixture)
            for name in scaling:
                lines = efficiency_lines(figs[name])
                self.assertTrue(lines, name)
                for x, y in lines:
                    self.assertEqual(x[0], 1, name)
                    self.assertAlmostEqual(y[0], 100.0, places=9, msg=name)
                self.assertIn("T(1) / (p \u00b7 T(p))", titles(figs[name]), name)

    def test_efficiency_is_the_variants_own_time_not_the_baselines(self):
        figs, _ = build("cpu_run")
        df = records("cpu_run")
        df = df[(df.status == "ok") & df.threads.notna() & (df.kernel == "transpose")
                & (df.dtype == "float")]
        expected = set()
        for _, g in df.groupby(["variant", "m", "n"]):
            g = g.set_index("threads")
            if 1 in g.index and 2 in g.index:
                t1 = g.loc[1, "time_ms_median"]
                expected.add(round(100 * t1 / (2 * g.loc[2, "time_ms_median"]), 6))
        drawn = {round(float(y[list(x).index(2)]), 6)
                 for x, y in efficiency_lines(figs["scaling_transpose_float.png"]) if 2 in x}
        self.assertTrue(expected)
        self.assertEqual(drawn, expected)

    def test_the_recorded_scaling_efficiency_is_what_is_drawn(self):
        # A run of this release records scaling_efficiency; the figure draws it as recorded.
        tmp = tempfile.mkdtemp(prefix="scaling-")
        for name in ("manifest.json", "records.csv"):
            shutil.copy(os.path.join(FIXTURES, "cpu_run", name), tmp)
        os.remove(os.path.join(tmp, "records.csv"))
        df = records("cpu_run")
        mark = df.threads == 2
        df["scaling_efficiency"] = np.where(mark, 0.4321, np.where(df.threads == 1, 1.0, np.nan))
        df.to_csv(os.path.join(tmp, "records.csv"), index=False)
        drawn, _ = build_dir(tmp, os.path.join(tmp, "report"))
        for x, y in efficiency_lines(drawn["scaling_gemm_float.png"]):
            self.assertAlmostEqual(float(y[list(x).index(2)]), 43.21, places=6)

    def test_the_seeds_efficiency_is_named_over_the_baseline(self):
        figs, _ = build("cpu_run")
        fig = figs["speedup_gemm_float.png"]
        self.assertIn("efficiency over the baseline", fig.axes[1].get_ylabel())
        self.assertTrue(any("2 threads" in label for label, _ in legend_entries(fig)))


if __name__ == "__main__":
    unittest.main()
