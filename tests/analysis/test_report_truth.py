"""The report tells the truth: roofs are the calibrated ceilings, references are
named, noise is shown, series and lines are honest, titles name the machine,
grid sweeps are drawn (the defects of the project's issue 15, part 2 and the
seed figures of part 1).

The figures are checked as drawn: analysis/report.py builds the report with
Figure.savefig recorded, so each test reads the lines, markers, texts and
titles matplotlib was given, not pixels.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import tempfile
import unittest
from unittest import mock

import matplotlib

matplotlib.use("Agg")
import matplotlib.figure  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ANALYSIS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "analysis")
FIXTURES = os.path.join(HERE, "fixtures")
sys.path.insert(0, ANALYSIS)
sys.path.insert(0, HERE)

import report  # noqa: E402
from test_report import md_table  # noqa: E402


def build(fixture: str):
    """Build the report of a fixture; return (figures by file name, report.md text)."""
    return build_dir(os.path.join(FIXTURES, fixture), tempfile.mkdtemp(prefix=f"truth-{fixture}-"))


def build_dir(results_dir: str, out: str):
    """Build the report of any results folder into `out`, recording the figures as drawn; return
    (figures by file name, report.md text)."""
    drawn = {}

    def record(fig, path, *args, **kwargs):
        drawn[os.path.basename(str(path))] = fig

    with mock.patch.object(matplotlib.figure.Figure, "savefig", autospec=True,
                           side_effect=record):
        doc = report.build_report(results_dir, out)
    return drawn, doc.markdown()


def records(fixture: str) -> pd.DataFrame:
    return pd.read_csv(os.path.join(FIXTURES, fixture, "records.csv"))


def manifest(fixture: str) -> dict:
    with open(os.path.join(FIXTURES, fixture, "manifest.json"), encoding="utf-8") as fh:
        return json.load(fh)


def pct(p: float) -> str:
    """A percentage as the tables write it: whole from 10 up, two digits below."""
    return (f"{p:.0f}" if p >= 10 else f"{p:.2g}") + " %"


def titles(fig) -> str:
    parts = [ax.get_title() for ax in fig.axes]
    if fig._suptitle is not None:
        parts.append(fig._suptitle.get_text())
    return "\n".join(parts)


def legend_entries(fig):
    """(label, handle) of every legend of the figure."""
    out = []
    for ax in fig.axes:
        for leg in [ax.get_legend()] + [a for a in ax.artists
                                        if isinstance(a, matplotlib.legend.Legend)]:
            if leg is not None:
                handles = getattr(leg, "legend_handles", None) or leg.legendHandles
                out += list(zip([t.get_text() for t in leg.get_texts()], handles))
    return out


def flat_roofs(ax) -> set[float]:
    """y of every horizontal line drawn over the whole x range (roofs, ceilings)."""
    out = set()
    for line in ax.get_lines():
        y = np.asarray(line.get_ydata(), dtype=float)
        if len(y) >= 2 and np.allclose(y, y[0]):
            out.add(round(float(y[0]), 1))
    return out


def slopes(ax) -> set[float]:
    """GB/s of every bandwidth roof: y / x where a roof line rises with x."""
    out = set()
    for line in ax.get_lines():
        x = np.asarray(line.get_xdata(), dtype=float)
        y = np.asarray(line.get_ydata(), dtype=float)
        if len(x) >= 50 and y[1] > y[0]:
            out.add(round(float(y[0] / x[0]), 1))
    return out


class Fixtures:
    """Each fixture's report built once for every test."""
    _cache: dict = {}

    @classmethod
    def get(cls, name):
        if name not in cls._cache:
            cls._cache[name] = build(name)
        return cls._cache[name]


class RooflineTest(unittest.TestCase):
    def test_roofs_are_the_calibrated_ceilings_not_the_runs_best_points(self):
        figs, _ = Fixtures.get("synthetic_gpu")
        calibration = manifest("synthetic_gpu")["calibration"]
        gpu = calibration["gpu"]["ceilings"]
        cpu = calibration["cpu"]["ceilings"][0]  # the serial CPU baseline runs on 1 thread
        ax = figs["roofline_gemm_float.png"].axes[0]
        # FP32: the higher of the FMA peak and cuBLAS SGEMM; TF32 cuBLAS for cublas_tf32; the
        # CPU's OpenBLAS SGEMM and copy at 1 thread
        self.assertEqual(flat_roofs(ax), {round(max(gpu["fp32_fma_gflops"], gpu["sgemm_gflops"]), 1),
                                          round(gpu["sgemm_tf32_gflops"], 1),
                                          round(cpu["sgemm_gflops"], 1)})
        self.assertEqual(slopes(ax), {round(gpu["copy_gbps"], 1), round(cpu["copy_gbps"], 1)})
        # FP64: cuBLAS DGEMM on tensor cores is above the FP64 FMA peak, and is the roof
        ax = figs["roofline_gemm_double.png"].axes[0]
        self.assertEqual(flat_roofs(ax), {round(gpu["dgemm_gflops"], 1)})
        best = records("synthetic_gpu").query("kernel == 'gemm' and dtype == 'double'")["gflops"].max()
        self.assertLess(best, gpu["dgemm_gflops"])

    def test_cpu_roofs_are_the_calibrated_ceilings_at_the_threads_shown(self):
        figs, _ = Fixtures.get("cpu_run")
        rows = {r["threads"]: r for r in manifest("cpu_run")["calibration"]["cpu"]["ceilings"]}
        two = rows[2]
        ax = figs["roofline_gemm_float.png"].axes[0]
        self.assertEqual(flat_roofs(ax), {round(two["sgemm_gflops"], 1)})
        self.assertEqual(slopes(ax), {round(two["copy_gbps"], 1)})
        ax = figs["roofline_gemm_double.png"].axes[0]
        self.assertEqual(flat_roofs(ax), {round(two["dgemm_gflops"], 1)})

    def test_without_calibration_there_are_no_roofs(self):
        figs, _ = Fixtures.get("synthetic_cpu")  # a run of a release before calibration
        ax = figs["roofline_gemm_float.png"].axes[0]
        self.assertEqual(flat_roofs(ax), set())
        self.assertEqual(slopes(ax), set())
        self.assertIn("no calibrated ceilings", titles(figs["roofline_gemm_float.png"]))


class TablesTest(unittest.TestCase):
    def best_rows(self, md: str, heading: str) -> list[dict]:
        section = md.split("## Best variant per size\n", 1)[1].split("\n## ", 1)[0]
        part = section.split(f"\n### {heading}", 1)[1].split("\n### ", 1)[0]
        return md_table("\n## x\n" + part, "## x")

    def test_a_reference_variant_is_named_and_ceilings_are_calibrated(self):
        _, md = Fixtures.get("synthetic_gpu")
        df = records("synthetic_gpu")
        rows = self.best_rows(md, "conv2d on the GPU")
        self.assertIn("% of cuDNN", rows[0])
        self.assertNotIn("% of ceiling", rows[0])
        for r in rows:
            size, k = re.match(r"(\d+)×\d+, K=(\d+)", r["size"]).groups()
            at = df.query(f"kernel == 'conv2d' and m == {size} and kernel_size == {k} "
                          "and status == 'ok'")
            best = at.loc[at["time_ms_median"].idxmin()]
            cudnn = at[at["variant"] == "cudnn"]["gflops"].max()
            self.assertEqual(r["% of cuDNN"], pct(100 * best["gflops"] / cudnn))
            # the calibrated ceilings: the record's own pct_peak_* (never above 100 here)
            self.assertEqual(r["% of compute ceiling"], pct(best["pct_peak_flops"]))
            self.assertEqual(r["% of bandwidth ceiling"], pct(best["pct_peak_bw"]))
        gemm = self.best_rows(md, "gemm on the GPU")
        self.assertIn("% of cuBLAS", gemm[0])
        tf32 = [r for r in gemm if r["best variant"] == "cublas_tf32"]
        self.assertTrue(tf32)
        for r in tf32:  # TF32 against its own ceiling, within it
            self.assertLessEqual(float(r["% of compute ceiling"].rstrip(" %")), 100)
        self.assertIn("% of copy", self.best_rows(md, "transpose on the GPU")[0])
        self.assertIn("% of OpenBLAS", self.best_rows(Fixtures.get("cpu_run")[1],
                                                      "gemm on the CPU")[0])


class NoiseTest(unittest.TestCase):
    def test_the_report_counts_the_noisy_points_and_names_the_worst(self):
        _, md = Fixtures.get("cpu_run")
        df = records("cpu_run")
        ok = df[df["status"] == "ok"]
        noisy = ok[ok["noise_warning"].notna()]
        self.assertGreater(len(noisy), 10)  # a real run on a shared 2-core machine
        summary = {r["status"]: r["points"] for r in md_table(md, "## Summary")}
        self.assertEqual(summary["ok but noisy (noise_warning)"], str(len(noisy)))
        noise = md.split("## Noise\n", 1)[1].split("\n## ", 1)[0]
        worst = noisy.loc[noisy["time_ms_rsd"].idxmax()]
        self.assertIn(f"{len(noisy)} of {len(ok)} ok points carry noise_warning", noise)
        self.assertIn(worst["point_key"], noise)

    def test_the_best_tables_mark_noisy_points(self):
        _, md = Fixtures.get("cpu_run")
        df = records("cpu_run").set_index("point_key")
        section = md.split("## Best variant per size\n", 1)[1].split("\n## ", 1)[0]
        marked = re.findall(r"\| ! [\d.]+ % \|", section)
        self.assertTrue(marked)
        self.assertTrue(df["noise_warning"].notna().any())

    def test_figures_mark_noisy_points(self):
        figs, _ = Fixtures.get("cpu_run")
        for name in ("time_gemm_float.png", "throughput_gemm_float.png",
                     "roofline_gemm_float.png", "speedup_gemm_float.png"):
            with self.subTest(figure=name):
                labels = [label for label, _ in legend_entries(figs[name])]
                self.assertTrue(any("noise_warning" in label for label in labels), labels)
                halos = [c for ax in figs[name].axes for c in ax.collections
                         if isinstance(c, PathCollection) and len(c.get_facecolor())
                         and np.allclose(c.get_facecolor()[0][:3], to_rgba("red")[:3])]
                self.assertTrue(halos)


class SeriesTest(unittest.TestCase):
    def test_series_that_differ_only_by_k_have_their_own_colour_and_marker(self):
        for fixture, name in (("cpu_run", "throughput_conv2d_float.png"),
                              ("synthetic_gpu", "throughput_conv2d_float.png"),
                              ("synthetic_gpu", "time_conv2d_float.png")):
            with self.subTest(fixture=fixture, figure=name):
                figs, _ = Fixtures.get(fixture)
                series = [(label, h) for label, h in legend_entries(figs[name])
                          if "K=" in label]
                self.assertGreater(len(series), 2)
                styles = [(to_rgba(h.get_color()), h.get_marker()) for _, h in series]
                colours = [s[0] for s in styles]
                markers = [s[1] for s in styles]
                self.assertEqual(len(set(colours)), len(colours), series)
                self.assertEqual(len(set(markers)), len(markers), series)

    def test_lines_join_only_problems_of_one_shape(self):
        for fixture in ("synthetic_gpu", "cpu_run"):
            df = records(fixture)
            df = df[df["kernel"] == "gemm"]
            dims = df[["m", "n", "k"]].to_numpy(dtype=float)
            x = np.exp(np.log(dims).mean(axis=1))
            shape = [f"{n / m:.3g}:{k / m:.3g}" for m, n, k in dims]
            shape_at = {round(float(v), 3): s for v, s in zip(x, shape)}
            self.assertGreater(len(set(shape)), 1, "the fixture needs a non-square problem")
            figs, _ = Fixtures.get(fixture)
            for name in ("time_gemm_float.png", "throughput_gemm_float.png",
                         "speedup_gemm_float.png"):
                if name not in figs:
                    continue
                for ax in figs[name].axes:
                    for line in ax.get_lines():
                        xs = np.asarray(line.get_xdata(), dtype=float)
                        if line.get_linestyle() in ("None", "none", "") or len(xs) < 2:
                            continue
                        shapes = {shape_at.get(round(float(v), 3)) for v in xs} - {None}
                        with self.subTest(fixture=fixture, figure=name, line=line.get_label()):
                            self.assertLessEqual(len(shapes), 1, xs)


class TitlesTest(unittest.TestCase):
    def test_titles_name_the_machine_and_never_read_na(self):
        for fixture, host, gpu in (("synthetic_gpu", "gpu-node07", "NVIDIA H100 80GB HBM3"),
                                   ("cpu_run", "vm", None)):
            figs, _ = Fixtures.get(fixture)
            for name, fig in figs.items():
                with self.subTest(fixture=fixture, figure=name):
                    text = titles(fig)
                    self.assertIn(f"host {host}", text)
                    self.assertNotRegex(text, r"\(na\)|\bna\b")
                    if gpu and ("heatmap" in name or "grid" in name):
                        self.assertIn(gpu, text)
        figs, _ = Fixtures.get("synthetic_gpu")
        self.assertIn("heatmap_hello_hello.png", figs)
        self.assertNotIn("hello hello", titles(figs["heatmap_hello_hello.png"]))


class HeatmapTest(unittest.TestCase):
    def test_a_grid_sweep_shows_every_grid_value(self):
        figs, _ = Fixtures.get("synthetic_gpu")
        df = records("synthetic_gpu").query("variant == 'naive_1d'")
        fig = figs["heatmap_gemm_float_naive_1d.png"]
        ticks = [t.get_text() for ax in fig.axes for t in ax.get_xticklabels()]
        for grid in df["grid"].unique():
            self.assertIn("auto" if grid == 0 else str(int(grid)), ticks)
        hello = figs["heatmap_hello_hello.png"]
        ticks = [t.get_text() for ax in hello.axes for t in ax.get_xticklabels()]
        self.assertEqual(sorted(ticks, key=int), ["1", "2", "4"])

    def test_sizes_of_one_configuration_get_no_panel_of_their_own(self):
        # Seed 003: naive_1d swept over the grid at a few sizes, launched once (grid auto) at
        # many others; only the swept sizes get a panel.
        src = os.path.join(FIXTURES, "synthetic_gpu")
        with open(os.path.join(src, "records.jsonl"), encoding="utf-8") as fh:
            lines = [json.loads(line) for line in fh if line.strip()]
        swept = {(r["m"], r["n"], r["k"]) for r in lines if r["variant"] == "naive_1d"}
        self.assertGreater(len(swept), 0)
        template = next(r for r in lines if r["variant"] == "naive_1d" and r["status"] == "ok")
        extra = []
        for i, size in enumerate((3000, 3100, 3200, 3300, 3400)):
            r = dict(template)
            r.update(m=size, n=size, k=size, grid=0, point_id=f"pextra{i}",
                     point_key=f"gemm/naive_1d size={size}")
            extra.append(r)
        out = tempfile.mkdtemp(prefix="truth-single-")
        with open(os.path.join(out, "records.jsonl"), "w", encoding="utf-8") as fh:
            for r in lines + extra:
                fh.write(json.dumps(r) + "\n")
        with open(os.path.join(src, "manifest.json"), encoding="utf-8") as fh:
            man = fh.read()
        with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as fh:
            fh.write(man)
        drawn = {}

        def record(fig, path, *args, **kwargs):
            drawn[os.path.basename(str(path))] = fig
        with mock.patch.object(matplotlib.figure.Figure, "savefig", autospec=True,
                               side_effect=record):
            report.build_report(out, os.path.join(out, "report"))
        fig = drawn["heatmap_gemm_float_naive_1d.png"]
        panel_titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
        self.assertTrue(panel_titles)
        for size in (3000, 3100, 3200, 3300, 3400):
            self.assertFalse(any(str(size) in t for t in panel_titles), panel_titles)
        figs, _ = Fixtures.get("synthetic_gpu")
        before = [ax.get_title() for ax in figs["heatmap_gemm_float_naive_1d.png"].axes
                  if ax.get_title()]
        self.assertEqual(sorted(panel_titles), sorted(before))

    def test_every_grey_cell_says_why(self):
        for fixture in ("synthetic_gpu",):
            figs, _ = Fixtures.get(fixture)
            for name, fig in figs.items():
                if not name.startswith("heatmap_"):
                    continue
                for ax in fig.axes:
                    for im in ax.get_images():
                        data = im.get_array()
                        texts = {(round(t.get_position()[0]), round(t.get_position()[1])):
                                 t.get_text() for t in ax.texts}
                        for i, j in zip(*np.nonzero(np.ma.getmaskarray(data))):
                            with self.subTest(figure=name, cell=(i, j)):
                                self.assertTrue(texts.get((j, i)), f"grey cell {i},{j}")


class HipRunTest(unittest.TestCase):
    def test_a_hip_run_is_drawn_as_a_gpu_run(self):
        # The GPU fixture's points as a HIP build records them (backend hip, an AMD device):
        # the same heatmaps, the device in the titles, transposes against the copy kernel.
        src = os.path.join(FIXTURES, "synthetic_gpu")
        out = tempfile.mkdtemp(prefix="truth-hip-")
        with open(os.path.join(src, "records.jsonl"), encoding="utf-8") as fh, \
                open(os.path.join(out, "records.jsonl"), "w", encoding="utf-8") as dst:
            for line in fh:
                if not line.strip():
                    continue
                r = json.loads(line)
                if r.get("backend") == "cuda":
                    r["backend"] = "hip"
                    r["gpu"] = "AMD Instinct MI210 (gfx90a:sramecc+:xnack-)"
                dst.write(json.dumps(r) + "\n")
        with open(os.path.join(src, "manifest.json"), encoding="utf-8") as fh:
            man = json.load(fh)
        man.get("environment", {}).setdefault("gpu", {})["name"] = "AMD Instinct MI210"
        man.pop("calibration", None)  # runner calibrate measures CUDA devices only
        with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as fh:
            json.dump(man, fh)
        drawn = {}

        def record(fig, path, *args, **kwargs):
            drawn[os.path.basename(str(path))] = fig
        with mock.patch.object(matplotlib.figure.Figure, "savefig", autospec=True,
                               side_effect=record):
            doc = report.build_report(out, os.path.join(out, "report"))
        cuda_figs, _ = Fixtures.get("synthetic_gpu")
        heatmaps = sorted(n for n in cuda_figs if n.startswith("heatmap_"))
        self.assertTrue(heatmaps)
        self.assertEqual(heatmaps, sorted(n for n in drawn if n.startswith("heatmap_")))
        for name in heatmaps:
            self.assertIn("MI210", titles(drawn[name]), name)
        self.assertIn("% of copy", doc.markdown())

class SeedFiguresTest(unittest.TestCase):
    def test_speedup_and_efficiency_against_size(self):
        figs, _ = Fixtures.get("synthetic_gpu")
        fig = figs["speedup_gemm_float.png"]
        labels = [label for label, _ in legend_entries(fig)]
        for variant in ("naive_2d", "shared", "cublas"):
            self.assertTrue(any(label.startswith(variant) for label in labels), labels)
        self.assertIn("omp_serial", titles(fig))  # GPU points against the CPU baseline
        figs, _ = Fixtures.get("cpu_run")
        fig = figs["speedup_gemm_float.png"]
        self.assertEqual(len(fig.axes), 2)  # speedup, and the efficiency OpenMP points have
        self.assertTrue(any("2 threads" in label for label, _ in legend_entries(fig)))

    def test_the_q_sweep_is_a_line_along_the_grid(self):
        figs, _ = Fixtures.get("synthetic_gpu")
        fig = figs["grid_gemm_float.png"]
        df = records("synthetic_gpu").query("variant == 'naive_1d' and block_x == 1")
        q = sorted(df["grid"])
        panels = {ax.get_title(): ax for ax in fig.axes if ax.get_title()}
        self.assertEqual(set(panels), {"time", "speedup", "efficiency"})
        xs = [sorted(np.asarray(line.get_xdata(), dtype=float)) for line in
              panels["time"].get_lines() if len(line.get_xdata()) == len(q)]
        self.assertIn([float(v) for v in q], xs)


if __name__ == "__main__":
    unittest.main()
