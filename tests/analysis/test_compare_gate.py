"""compare must not call noise a change, and its gate fails (exit 1) on a
regression beyond threshold and beyond noise (issue 15, parts 2 and 3).

cpu_run and cpu_run_again are two real runs of one config by one build on a
shared 2-core machine, one after the other: nothing changed but the machine's
load, and most points did not settle (noise_warning).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import textwrap
import unittest

import pandas as pd

from test_report import FIXTURES, run_tool


class CompareNoiseTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="compare-gate-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def compare(self, a, b, *args):
        out = os.path.join(self.tmp, "cmp.csv")
        proc = run_tool("compare", a, b, "--out", out, *args, cwd=self.tmp)
        table = pd.read_csv(out) if os.path.exists(out) else None
        return proc, table

    def test_two_runs_of_one_build_are_not_called_changed(self):
        a, b = (os.path.join(FIXTURES, n) for n in ("cpu_run", "cpu_run_again"))
        proc, res = self.compare(a, b)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        changed = res["verdict"].isin(["faster", "slower"])
        self.assertLess(changed.sum(), 0.1 * len(res), res[changed].to_string())
        # every point that did not settle in either run is noise, never a change
        noisy = set()
        for d in (a, b):
            df = pd.read_csv(os.path.join(d, "records.csv"))
            noisy |= set(df.loc[df["noise_warning"].notna(), "point_id"])
        verdict = dict(zip(res["point_id"], res["verdict"]))
        self.assertTrue(noisy & set(verdict))
        for pid in noisy & set(verdict):
            self.assertEqual(verdict[pid], "noise", pid)
        self.assertRegex(proc.stdout, r"noise: \d+ points did not settle")


class GateTest(unittest.TestCase):
    """--fail-above, --reference and --fail-on-noise on a fixture and a changed copy."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="compare-gate-")
        self.a = os.path.join(self.tmp, "a")
        self.b = os.path.join(self.tmp, "b")
        shutil.copytree(os.path.join(FIXTURES, "synthetic_gpu"), self.a)
        shutil.copytree(os.path.join(FIXTURES, "synthetic_gpu"), self.b)
        self.df = pd.read_csv(os.path.join(self.b, "records.csv"))
        ok = self.df[(self.df["status"] == "ok")]
        self.quiet = ok[ok["noise_warning"].isna()].index
        self.noisy = ok[ok["noise_warning"].notna()].index

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def slow_down(self, index, factor):
        self.df.loc[index, ["time_ms_median", "time_ms_min"]] *= factor
        self.df.to_csv(os.path.join(self.b, "records.csv"), index=False)
        return self.df.loc[index, "point_key"]

    def run_compare(self, *args):
        out = os.path.join(self.tmp, "cmp.csv")
        proc = run_tool("compare", *args, "--out", out, cwd=self.tmp)
        return proc, (pd.read_csv(out) if os.path.exists(out) else None)

    def test_no_regression_passes(self):
        proc, res = self.run_compare(self.a, self.b, "--fail-above", "5")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("gate: passed", proc.stdout)
        self.assertTrue(res["gate"].isin(["pass"]).all())

    def test_a_regression_beyond_the_threshold_fails(self):
        key = self.slow_down(self.quiet[0], 1.30)
        proc, res = self.run_compare(self.a, self.b, "--fail-above", "10")
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn("gate: FAILED, 1 point", proc.stdout)
        self.assertIn(f"FAIL   {key}", proc.stdout)
        failed = res[res["gate"] == "FAIL"]
        self.assertEqual(list(failed["point_key"]), [key])
        # below the threshold, the same slowdown passes
        proc, _ = self.run_compare(self.a, self.b, "--fail-above", "40")
        self.assertEqual(proc.returncode, 0, proc.stdout)

    def test_a_noisy_point_is_not_judged_unless_asked(self):
        key = self.slow_down(self.noisy[0], 1.5)
        proc, res = self.run_compare(self.a, self.b, "--fail-above", "10")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(res.set_index("point_key").loc[key, "verdict"], "noise")
        self.assertIn(f"noise  {key}", proc.stdout)
        proc, _ = self.run_compare(self.a, self.b, "--fail-above", "10", "--fail-on-noise")
        self.assertEqual(proc.returncode, 1, proc.stdout)

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(textwrap.dedent(text))
        return path

    def test_per_point_references_with_tolerances(self):
        row = self.df.loc[self.quiet[0]]
        refs = self.write("refs.yaml", f"""\
            references:
              - point: "{row['point_key']}"
                time_ms: [{row['time_ms_median']}, null, 0.05]
              - point: "gemm/cublas *"
                time_ms: [null, -0.5, 0.02]     # null: run A's value
            """)
        proc, res = self.run_compare(self.a, self.b, "--reference", refs)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        # one run alone against the references
        proc, res = self.run_compare(self.b, "--reference", self.write("abs.yaml", f"""\
            references:
              - point: "{row['point_key']}"
                time_ms: [{row['time_ms_median']}, null, 0.05]
            """))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(res.set_index("point_key").loc[row["point_key"], "gate"], "pass")
        key = self.slow_down(self.quiet[0], 1.10)
        proc, res = self.run_compare(self.a, self.b, "--reference", refs)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn(f"FAIL   {key}: time_ms", proc.stdout)
        self.assertIn("refs.yaml:2:", proc.stdout)  # which entry it broke

    def test_a_bad_reference_file_names_its_line_and_column(self):
        for text, where, what in (
                ("references:\n  - point: '*'\n    time_ms: [1, 0.1, null]\n", ":3:18:",
                 "lower threshold"),
                ("references:\n  - point: '*'\n    flops: [1, null, 0.1]\n", ":3:5:",
                 "unknown metric 'flops'"),
                ("references:\n  - time_ms: [1, null, 0.1]\n", ":2:5:", "no 'point'"),
                ("references: [\n", ":2:1:", "")):
            with self.subTest(text=text):
                path = self.write("bad.yaml", text)
                proc, _ = self.run_compare(self.a, self.b, "--reference", path)
                self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                self.assertIn(f"bad.yaml{where}", proc.stderr)
                self.assertIn(what, proc.stderr)

    def test_usage_errors_exit_2(self):
        for args in ((self.a,), (self.a, "--fail-above", "5"),
                     (self.a, self.b, "--fail-above", "-1"),
                     (self.a, self.b, os.path.join(self.tmp, "c"))):
            with self.subTest(args=args):
                proc, _ = self.run_compare(*args)
                self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)


if __name__ == "__main__":
    unittest.main()
