"""Tests of analysis/report and analysis/compare.

Run from any directory:
    /usr/bin/python3 -m unittest discover -s tests/analysis -v

Every fixture directory under tests/analysis/fixtures/ that holds a
records.csv is used (synthetic_* from make_synthetic.py; cpu_run from a real
runner run).  Expected values are computed here straight from the CSV with
plain pandas, independently of analysis/results_io.py.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import matplotlib

matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ANALYSIS = os.path.join(REPO, "analysis")
FIXTURES = os.path.join(HERE, "fixtures")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TIMES = "\u00d7"

NUMERIC = ["m", "n", "k", "block_x", "block_y", "threads", "samples",
           "time_ms_median", "time_ms_min", "time_ms_mean", "time_ms_stddev",
           "gflops", "gbps", "speedup", "efficiency", "max_rel_err",
           "kernel_size", "time_ms_max", "time_ms_rsd", "h2d_ms", "d2h_ms", "pct_of_copy",
           "arith_intensity", "pct_peak_bw", "pct_peak_flops", "verify_tolerance", "seed"]
CONTRACT_PREFIX = [
    "experiment", "point_id", "kernel", "variant", "backend", "dtype",
    "m", "n", "k", "block_x", "block_y", "threads", "status", "message",
    "samples", "time_ms_median", "time_ms_min", "time_ms_mean",
    "time_ms_stddev", "gflops", "gbps", "speedup", "efficiency", "verified",
    "max_rel_err", "host", "gpu", "slurm_job_id", "slurm_array_task_id",
    "timestamp",
]


def fixture_names() -> list[str]:
    return sorted(d for d in os.listdir(FIXTURES)
                  if os.path.isfile(os.path.join(FIXTURES, d, "records.csv")))


def run_tool(tool: str, *args: str, cwd: str) -> subprocess.CompletedProcess:
    """Run analysis/<tool> (the bash wrapper) as a user would, from `cwd`."""
    return subprocess.run([os.path.join(ANALYSIS, tool), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def read_csv(results_dir: str) -> pd.DataFrame:
    df = pd.read_csv(os.path.join(results_dir, "records.csv"))
    for col in ("kernel", "variant", "backend", "dtype", "status", "message", "point_id"):
        df[col] = df[col].fillna("").astype(str)
    if "kernel_size" not in df:
        df["kernel_size"] = np.nan
    return df


def ok_rows(df: pd.DataFrame) -> pd.DataFrame:
    return df[(df["status"] == "ok") & (df["time_ms_median"] > 0)]


def n(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def size_label(r) -> str:
    """The report's size column: full dimensions, K appended for conv2d."""
    if r.kernel == "gemm":
        dims = [r.m, r.n, r.k]
    elif r.kernel == "transpose":
        dims = [r.m, r.n]
    elif r.kernel == "conv2d":
        dims = [r.m if not math.isnan(r.m) else r.n, r.n if not math.isnan(r.n) else r.m]
    else:
        dims = [r.m, r.n, r.k]
    dims = [d for d in dims if not math.isnan(d)]
    if not dims:
        return "n/a"
    s = TIMES.join(n(d) for d in dims)
    if not math.isnan(r.kernel_size):
        s += f", K={n(r.kernel_size)}"
    return s


def figure_file(*parts: str) -> str:
    """A figure's file name: its parts joined, an empty dtype left out (hello)."""
    return "_".join(p for p in parts if p) + ".png"


def expected_figures(df: pd.DataFrame) -> set[str]:
    """Figure files the report must write, derived from the rules in docs/analysis.md."""
    out = set()
    for col in ("grid", "grid_blocks", "speedup", "is_baseline"):
        if col not in df:
            df[col] = np.nan
    ok = ok_rows(df)
    metric = {"gemm": "gflops", "conv2d": "gflops", "transpose": "gbps"}
    for (kernel, dtype), g in df.fillna({"dtype": ""}).groupby(["kernel", "dtype"]):
        gok = ok[(ok["kernel"] == kernel) & (ok["dtype"].fillna("") == dtype)]
        sized = gok[gok["m"].notna() | gok["n"].notna()]
        if not sized.empty:
            out.add(figure_file("time", kernel, dtype))
            col = metric.get(kernel)
            if col and (sized[col] > 0).any():
                out.add(figure_file("throughput", kernel, dtype))
            baseline = sized["is_baseline"].astype(str).str.lower() == "true"
            if (sized["speedup"] > 0)[~baseline].any():
                out.add(figure_file("speedup", kernel, dtype))
        cpu = gok[(gok["backend"] == "cpu") & gok["threads"].notna()]
        if not cpu.empty:
            keys = ["variant", "m", "n", "k", "kernel_size"]
            counts = cpu.fillna({c: -1 for c in keys}).groupby(keys)["threads"].nunique()
            if (counts > 1).any():
                out.add(figure_file("scaling", kernel, dtype))
        swept = gok[gok["grid"].notna()].copy()
        swept["blocks"] = swept["grid_blocks"].where(swept["grid_blocks"] > 0,
                                                     swept["grid"].where(swept["grid"] > 0))
        keys = ["variant", "m", "n", "k", "kernel_size", "block_x", "block_y"]
        swept = swept[swept["blocks"].notna()].fillna({c: -1 for c in keys})
        if not swept.empty and (swept.groupby(keys)["blocks"].nunique() > 1).any():
            out.add(figure_file("grid", kernel, dtype))
        cuda = g[(g["backend"] == "cuda") & g["block_x"].notna()]
        for variant, v in cuda.groupby("variant"):
            shapes = set(zip(v["block_x"], v["block_y"].fillna(1)))
            grids = set(v["grid"].dropna())
            if (len(shapes) > 1 or len(grids) > 1) and not ok_rows(v).empty:
                out.add(figure_file("heatmap", kernel, dtype, variant))
        if kernel in ("gemm", "conv2d") and (gok["gflops"] > 0).any():
            out.add(figure_file("roofline", kernel, dtype))
    return out


def md_table(md: str, heading: str) -> list[dict]:
    """Rows of the first Markdown table after `heading`, as dicts."""
    section = md.split(heading, 1)[1]
    section = re.split(r"\n## ", section, maxsplit=1)[0]
    lines = [ln for ln in section.splitlines() if ln.startswith("|")]
    if not lines:
        return []

    def cells(line):
        parts = re.split(r"(?<!\\)\|", line.strip())[1:-1]
        return [p.strip().replace("\\|", "|") for p in parts]

    header = cells(lines[0])
    return [dict(zip(header, cells(ln))) for ln in lines[2:]]


def best_tables(md: str, heading: str) -> dict[tuple[str, str], list[dict]]:
    """The best-variant tables of a section, one per kernel and backend: {(kernel, backend):
    rows}, from their "### gemm on the GPU (...)" headings."""
    section = md.split(heading + "\n", 1)[1]
    section = re.split(r"\n## ", section, maxsplit=1)[0]
    out = {}
    for part in section.split("\n### ")[1:]:
        m = re.match(r"(\w+) on the (GPU|CPU)", part)
        backend = {"GPU": "cuda", "CPU": "cpu"}[m.group(2)]
        out[(m.group(1), backend)] = md_table("\n## x\n" + part, "## x")
    return out


class ReportTest(unittest.TestCase):
    """analysis/report on every fixture, run from an unrelated directory."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="analysis-test-")
        cls.runs = {}
        for name in fixture_names():
            dst = os.path.join(cls.tmp, name)
            shutil.copytree(os.path.join(FIXTURES, name), dst)
            proc = run_tool("report", dst, cwd=cls.tmp)
            cls.runs[name] = (dst, proc)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_fixtures_exist(self):
        names = fixture_names()
        self.assertTrue(any(n.startswith("synthetic_") for n in names), names)

    def test_report_exits_zero(self):
        for name, (_, proc) in self.runs.items():
            with self.subTest(fixture=name):
                self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_expected_pngs_exist_and_are_valid(self):
        for name, (d, _) in self.runs.items():
            with self.subTest(fixture=name):
                out = os.path.join(d, "report")
                expected = expected_figures(read_csv(d))
                self.assertTrue(expected, "fixture should yield figures")
                actual = {f for f in os.listdir(out) if f.endswith(".png")}
                self.assertEqual(actual, expected)
                for png in sorted(actual):
                    path = os.path.join(out, png)
                    with open(path, "rb") as fh:
                        self.assertEqual(fh.read(8), PNG_SIGNATURE, png)
                    self.assertGreater(os.path.getsize(path), 5 * 1024, png)
                    img = mpimg.imread(path)
                    self.assertGreater(img.shape[0], 200, png)
                    self.assertGreater(img.shape[1], 300, png)
                    # One integer a pixel (0xRRGGBB): np.unique of rows (axis=0) took a minute
                    # over the fixtures' figures, of integers a second.
                    rgb = np.round(img[..., :3] * 255).astype(np.uint32).reshape(-1, 3)
                    colours = len(np.unique(rgb[:, 0] << 16 | rgb[:, 1] << 8 | rgb[:, 2]))
                    self.assertGreater(colours, 16, f"{png}: only {colours} colours")

    def test_markdown_and_html_reference_every_png(self):
        for name, (d, _) in self.runs.items():
            with self.subTest(fixture=name):
                out = os.path.join(d, "report")
                pngs = sorted(f for f in os.listdir(out) if f.endswith(".png"))
                with open(os.path.join(out, "report.md"), encoding="utf-8") as fh:
                    md = fh.read()
                with open(os.path.join(out, "report.html"), encoding="utf-8") as fh:
                    page = fh.read()
                for png in pngs:
                    self.assertIn(f"]({png})", md)
                # self-contained: every figure inline, none by file reference
                self.assertEqual(page.count('src="data:image/png;base64,'), len(pngs))
                self.assertNotRegex(page, r'src="[^"]*\.png"')

    @staticmethod
    def expected_best(ok: pd.DataFrame) -> dict:
        """(kernel, dtype, backend, size) -> variants with the minimal median."""
        ok = ok.copy()
        ok["size"] = [size_label(r) for r in ok.itertuples()]
        expected = {}
        ok["dtype"] = ok["dtype"].fillna("")
        for key, g in ok.groupby(["kernel", "dtype", "backend", "size"]):
            tmin = g["time_ms_median"].min()
            expected[key] = set(g.loc[g["time_ms_median"] == tmin, "variant"])
        return expected

    def check_best(self, md: str, heading: str, expected: dict):
        got = {}
        for (kernel, backend), rows in best_tables(md, heading).items():
            for r in rows:
                dtype = "" if r["dtype"] == "\u2014" else r["dtype"]
                size = "n/a" if r["size"] == "\u2014" else r["size"]
                got[(kernel, dtype, backend, size)] = r["best variant"]
        self.assertEqual(set(got), set(expected))
        for key, variant in got.items():
            self.assertIn(variant, expected[key], key)

    def test_best_variant_tables(self):
        vendor = {"cublas", "cublas_tf32", "openblas", "cudnn"}
        for name, (d, _) in self.runs.items():
            with self.subTest(fixture=name):
                ok = ok_rows(read_csv(d))
                # a plain copy only bounds a transpose, it does not compete
                ok = ok[~((ok["kernel"] == "transpose") & (ok["variant"] == "copy"))]
                with open(os.path.join(d, "report", "report.md"), encoding="utf-8") as fh:
                    md = fh.read()
                self.check_best(md, "## Best variant per size", self.expected_best(ok))
                if ok["variant"].isin(vendor).any():
                    self.check_best(md, "## Best own implementation per size",
                                    self.expected_best(ok[~ok["variant"].isin(vendor)]))

    def test_failed_skipped_and_missing_points_listed(self):
        for name, (d, _) in self.runs.items():
            with self.subTest(fixture=name):
                df = read_csv(d)
                with open(os.path.join(d, "report", "report.md"), encoding="utf-8") as fh:
                    md = fh.read()
                bad = df[df["status"] != "ok"]
                if not bad.empty:
                    rows = md_table(md, "## Points that did not succeed")
                    listed = {r["point_id"]: r for r in rows}
                    for r in bad.itertuples():
                        self.assertIn(r.point_id, listed)
                        self.assertEqual(listed[r.point_id]["status"], r.status)
                        if r.message:
                            self.assertEqual(listed[r.point_id]["message"], r.message)
                with open(os.path.join(d, "manifest.json"), encoding="utf-8") as fh:
                    manifest = json.load(fh)
                planned = [p["point_id"] for p in manifest.get("points", [])
                           if isinstance(p, dict) and "point_id" in p]
                missing = set(planned) - set(df["point_id"])
                if missing:
                    rows = md_table(md, "## Missing points")
                    self.assertEqual({r["point_id"] for r in rows}, missing)

    def test_synthetic_fixtures_cover_the_edge_cases(self):
        """The synthetic fixtures must keep exercising failures and gaps."""
        for name in ("synthetic_cpu", "synthetic_gpu"):
            d = os.path.join(FIXTURES, name)
            df = read_csv(d)
            self.assertTrue({"failed", "skipped"} <= set(df["status"]), name)
        gpu = os.path.join(FIXTURES, "synthetic_gpu")
        with open(os.path.join(gpu, "manifest.json"), encoding="utf-8") as fh:
            planned = {p["point_id"] for p in json.load(fh)["points"]}
        self.assertTrue(planned - set(read_csv(gpu)["point_id"]))

    def test_provenance(self):
        for name, (d, _) in self.runs.items():
            with self.subTest(fixture=name):
                with open(os.path.join(d, "manifest.json"), encoding="utf-8") as fh:
                    manifest = json.load(fh)
                with open(os.path.join(d, "report", "report.md"), encoding="utf-8") as fh:
                    prov = {r["item"]: r["value"] for r in md_table(fh.read(), "## Provenance")}
                self.assertIn("host", prov)
                self.assertIn("git revision", prov)
                env = manifest.get("environment", {})
                if env.get("git_revision"):
                    self.assertEqual(prov["git revision"], str(env["git_revision"]))
                if env.get("host"):
                    self.assertEqual(prov["host"], env["host"])

    def test_csv_contract_and_numeric_dtypes(self):
        for name in fixture_names():
            with self.subTest(fixture=name):
                path = os.path.join(FIXTURES, name, "records.csv")
                df = pd.read_csv(path)
                self.assertEqual(list(df.columns[:len(CONTRACT_PREFIX)]), CONTRACT_PREFIX)
                for col in NUMERIC:
                    if col in df.columns:
                        self.assertTrue(pd.api.types.is_numeric_dtype(df[col]),
                                        f"{col} is {df[col].dtype}")
                self.assertTrue(set(df["status"]) <= {"ok", "failed", "skipped", "invalid"})
                verified = df["verified"].dropna().astype(str).str.lower()
                self.assertTrue(set(verified) <= {"true", "false"}, set(verified))

    def test_partial_run_from_jsonl_only(self):
        """A run killed mid-write: no CSV, a truncated JSONL line; still reports."""
        src = os.path.join(FIXTURES, "synthetic_gpu")
        d = os.path.join(self.tmp, "partial")
        shutil.copytree(src, d)
        os.remove(os.path.join(d, "records.csv"))
        with open(os.path.join(d, "records.jsonl"), encoding="utf-8") as fh:
            lines = fh.readlines()
        kept = lines[:40]
        with open(os.path.join(d, "records.jsonl"), "w", encoding="utf-8") as fh:
            fh.writelines(kept + [lines[40][:25]])  # torn last line
        proc = run_tool("report", d, cwd=self.tmp)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(d, "report", "report.md"), encoding="utf-8") as fh:
            md = fh.read()
        rows = md_table(md, "## Missing points")
        with open(os.path.join(d, "manifest.json"), encoding="utf-8") as fh:
            planned = json.load(fh)["points"]
        self.assertEqual(len(rows), len(planned) - len(kept))


class CompareTest(unittest.TestCase):
    """analysis/compare on a fixture against a perturbed copy of itself."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="analysis-compare-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_same_and_injected_changes(self):
        for name in fixture_names():
            with self.subTest(fixture=name):
                a = os.path.join(self.tmp, name + "_a")
                b = os.path.join(self.tmp, name + "_b")
                shutil.copytree(os.path.join(FIXTURES, name), a)
                shutil.copytree(os.path.join(FIXTURES, name), b)
                df = pd.read_csv(os.path.join(b, "records.csv"))
                ok_idx = df.index[(df["status"] == "ok") & (df["time_ms_median"] > 0)]
                self.assertGreaterEqual(len(ok_idx), 4)
                # run-to-run jitter well inside the 2 % floor
                jitter = 1 + 0.006 * np.sin(np.arange(len(df)))
                df.loc[ok_idx, "time_ms_median"] *= jitter[ok_idx]
                # inject at the two quietest points: a point that did not settle
                # (noise_warning) is called noise whatever its change
                rsd = (df.loc[ok_idx, "time_ms_stddev"] / df.loc[ok_idx, "time_ms_median"])
                if "noise_warning" in df:
                    rsd = rsd[df.loc[ok_idx, "noise_warning"].isna()]
                slow, fast = rsd.sort_values(kind="stable").index[:2]
                df.loc[slow, "time_ms_median"] *= 2.0
                df.loc[fast, "time_ms_median"] *= 0.5
                df.to_csv(os.path.join(b, "records.csv"), index=False)
                out = os.path.join(self.tmp, name + "_cmp.csv")

                proc = run_tool("compare", a, b, "--out", out, cwd=self.tmp)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                self.assertIn("slower", proc.stdout)
                res = pd.read_csv(out)
                self.assertEqual(len(res), len(ok_idx))
                verdict = dict(zip(res["point_id"], res["verdict"]))
                self.assertEqual(verdict.pop(df.loc[slow, "point_id"]), "slower")
                self.assertEqual(verdict.pop(df.loc[fast, "point_id"]), "faster")
                unchanged = sum(v in ("same", "noise") for v in verdict.values())
                self.assertGreaterEqual(unchanged, 0.9 * len(verdict))
                ratio = dict(zip(res["point_id"], res["ratio"]))
                self.assertAlmostEqual(ratio[df.loc[slow, "point_id"]] / jitter[slow], 2.0, places=3)

    def test_point_ids_stay_text_in_pandas(self):
        # A bare hex id that is all digits, or digits-e-digits, becomes a float64 in pandas (and
        # a rounded number or 3.2E+101 in a spreadsheet); the "p" keeps every id text.
        d = os.path.join(FIXTURES, "cpu_run")
        frames = {"read_csv": pd.read_csv(os.path.join(d, "records.csv")),
                  "read_json": pd.read_json(os.path.join(d, "records.jsonl"), lines=True)}
        for how, df in frames.items():
            with self.subTest(reader=how):
                self.assertEqual(df["point_id"].dtype, object)
                self.assertTrue(all(isinstance(v, str) and re.fullmatch(r"p[0-9a-f]{16}", v)
                                    for v in df["point_id"]))

    def test_runs_of_earlier_releases_compare_with_todays(self):
        # Runs written before ids had their "p" still match today's point by point.
        old = os.path.join(self.tmp, "old")
        new = os.path.join(self.tmp, "new")
        shutil.copytree(os.path.join(FIXTURES, "cpu_run"), old)
        shutil.copytree(os.path.join(FIXTURES, "cpu_run"), new)
        for name in ("records.csv", "records.jsonl", "manifest.json"):
            path = os.path.join(old, name)
            with open(path, encoding="utf-8", newline="") as fh:
                text = fh.read()
            with open(path, "w", encoding="utf-8", newline="") as fh:
                fh.write(re.sub(r"\bp([0-9a-f]{16})\b", r"\1", text))
        out = os.path.join(self.tmp, "cmp.csv")
        proc = run_tool("compare", old, new, "--out", out, cwd=self.tmp)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        res = pd.read_csv(out)
        ok = read_csv(new)
        self.assertEqual(len(res), int((ok["status"] == "ok").sum()))
        self.assertTrue(res["verdict"].isin(["same", "noise"]).all())
        self.assertTrue(np.allclose(res["ratio"], 1.0))

    def test_default_output_path(self):
        name = fixture_names()[0]
        a = os.path.join(self.tmp, "a")
        shutil.copytree(os.path.join(FIXTURES, name), a)
        proc = run_tool("compare", a, a, cwd=self.tmp)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        res = pd.read_csv(os.path.join(a, "compare.csv"))
        self.assertTrue(res["verdict"].isin(["same", "noise"]).all())
        self.assertTrue(np.allclose(res["ratio"], 1.0))

    def test_verdict_rule_uses_spread_and_samples(self):
        sys.path.insert(0, ANALYSIS)
        try:
            import compare as cmp
        finally:
            sys.path.remove(ANALYSIS)

        def frame(median, stddev, samples):
            return pd.DataFrame({
                "point_id": ["p"], "kernel": ["gemm"], "variant": ["v"], "backend": ["cpu"],
                "dtype": ["float"], "size_full": ["1"], "size_x": [1.0], "config": ["-"],
                "time_ms_median": [median], "time_ms_stddev": [stddev],
                "samples": [samples], "ok": [True]})

        # +5 %, noisy (20 % rsd) with few samples: noise (a run without noise_warning is
        # judged by its spread, above 5 % noisy)
        t, _ = cmp.compare(frame(1.0, 0.2, 5), frame(1.05, 0.21, 5))
        self.assertEqual(t["verdict"][0], "noise")
        # +5 %, quiet (1 % rsd) with many samples: a real slowdown
        t, _ = cmp.compare(frame(1.0, 0.01, 50), frame(1.05, 0.0105, 50))
        self.assertEqual(t["verdict"][0], "slower")
        # +1 %, quiet: below the 2 % floor
        t, _ = cmp.compare(frame(1.0, 0.001, 50), frame(1.01, 0.001, 50))
        self.assertEqual(t["verdict"][0], "same")
        # -10 %, no spread recorded: the floor decides
        t, _ = cmp.compare(frame(1.0, float("nan"), float("nan")),
                           frame(0.9, float("nan"), float("nan")))
        self.assertEqual(t["verdict"][0], "faster")
        # +10 %, one huge slow outlier inflates the stddev, but the lower half
        # of the samples is tight: the slowdown is still seen
        a, b = frame(1.0, 5.0, 30), frame(1.10, 5.0, 30)
        a["time_ms_min"], b["time_ms_min"] = 0.98, 1.078
        t, _ = cmp.compare(a, b)
        self.assertEqual(t["verdict"][0], "slower")
        # without time_ms_min the stddev alone decides: noise
        t, _ = cmp.compare(frame(1.0, 5.0, 30), frame(1.10, 5.0, 30))
        self.assertEqual(t["verdict"][0], "noise")


if __name__ == "__main__":
    unittest.main()
