"""One calibration per machine, judged before it is kept, on a machine loaded on purpose (a busy
process on top of whatever else runs): the project's issue 34 measured one-thread SGEMM at
51 GFLOP/s on a loaded 2-core machine that had measured 103.5 three minutes earlier, kept it, and
its reports said 228 % "of compute ceiling" without a word.

  * `runner calibrate` under load stores a provisional calibration with why, in the user's cache;
  * runs from two working folders use that one (no new measurement), copy it into their results
    folder, and every pct_peak_* above 100 of their records says why (ceiling_note), as does
    every such percentage of their report;
  * a calibration measured under load never replaces a quiet one (exit 3, the quiet one kept);
  * `runner calibrate --check` fails (exit 1) on a provisional calibration.

Usage: calibration_store_test.py RUNNER_BINARY [-v] (the system Python).
"""
import json
import os
import pathlib
import re
import socket
import subprocess
import sys
import tempfile
import unittest

RUNNER = None

CONFIG = """experiment: loaded
kernel: gemm
repeat: {warmup: 1, min_samples: 3, max_samples: 5, max_seconds: 0.2}
baseline: omp_serial
sweeps:
  - {variant: [openblas, omp_blocked], size: [128, 256], threads: [1, 2]}
"""


class LoadedMachineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = pathlib.Path(cls.tmp.name)
        (cls.dir / "c.yaml").write_text(CONFIG, encoding="utf-8")
        cls.env = {k: v for k, v in os.environ.items() if k != "RUNNER_CALIBRATION_DIR"}
        cls.env.update(XDG_CACHE_HOME=str(cls.dir / "cache"), RUNNER_CALIBRATION_ATTEMPTS="1")
        # A process that keeps a core busy: the load a shared node has, five times the 0.2 cores
        # of other processes that make a calibration loaded. (Two, one a core, took both cores of
        # a 2-core machine from the tests beside this one for its whole minute or two.) It spins
        # only while this test lives: a run killed from outside leaves no hog to slow what follows.
        spin = "import os\nparent = os.getppid()\nwhile os.getppid() == parent: pass"
        cls.hogs = [subprocess.Popen(["/usr/bin/python3", "-c", spin]) for _ in range(1)]
        cls.addClassCleanup(cls.stop_hogs)
        cls.calibrated = cls.runner("calibrate", "--cpu-only")
        host = socket.gethostname()
        cls.store = cls.dir / "cache" / "runner" / "calibration" / host
        cls.files = sorted(cls.store.glob("cpu-*.json")) if cls.store.is_dir() else []

    @classmethod
    def stop_hogs(cls):
        for hog in cls.hogs:
            hog.kill()
            hog.wait()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @classmethod
    def runner(cls, *args, cwd=None):
        return subprocess.run([RUNNER, *args], capture_output=True, text=True, timeout=600,
                              env=cls.env, cwd=cwd or cls.dir)

    def test_1_a_calibration_under_load_is_kept_provisional_with_why(self):
        r = self.calibrated
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("cpu calibration stored as provisional: other processes used", r.stderr)
        self.assertEqual(len(self.files), 1, list(self.store.iterdir()))
        doc = json.loads(self.files[0].read_text())
        self.assertEqual(doc["verdict"]["state"], "provisional")
        self.assertGreater(doc["conditions"]["other_processes_cores"], 0.2)
        self.assertEqual(len(doc["conditions"]["load_average_before"]), 3)
        for row in doc["ceilings"]:
            self.assertIn("sgemm_spread", row)

    def test_2_runs_from_any_folder_use_the_machines_calibration_and_flag_above_100(self):
        self.assertEqual(len(self.files), 1)
        stored = self.files[0].read_text()
        for name in ("a", "b"):
            folder = self.dir / f"folder-{name}"
            folder.mkdir()
            r = self.runner(str(self.dir / "c.yaml"), "--out", "out", "-q", cwd=folder)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertNotIn("calibrating", r.stderr)  # the machine's, not measured again
            out = folder / "out"
            manifest = json.loads((out / "manifest.json").read_text())
            self.assertEqual(manifest["calibration"]["files"]["cpu"], str(self.files[0]))
            self.assertEqual(manifest["calibration"]["cpu"]["verdict"]["state"], "provisional")
            self.assertTrue((out / "calibration" / self.files[0].name).is_file())
            above = 0
            for line in (out / "records.jsonl").read_text().splitlines():
                rec = json.loads(line)
                if max(rec["pct_peak_flops"] or 0, rec["pct_peak_bw"] or 0) > 100:
                    above += 1
                    self.assertIn("measured under load", rec["ceiling_note"], rec)
            # The report: no percentage above 100 of a ceiling without its numbered reason (a
            # reference such as "% of OpenBLAS" or a spread may exceed 100 on its own).
            r = self.runner("report", str(out))
            self.assertEqual(r.returncode, 0, r.stderr)
            md = (out / "report" / "report.md").read_text()
            self.assertIn("| ceilings (CPU) |", md)
            unflagged = [line for line in md.splitlines() if line.startswith("|")
                         for cell in line.split("|")
                         if (m := re.fullmatch(r" (\d[\d,.]*) % ", cell))
                         and float(m.group(1).replace(",", "")) > 100
                         and "ceiling" in self.header(md, line, cell)]
            self.assertEqual(unflagged, [], "percentages above 100 without their flag")
            # A flagged percentage has its reason under the table. (The report shows each size's
            # best point only: a record above 100 % that is not one shows no percentage at all.)
            flagged = [cell for line in md.splitlines() if line.startswith("|")
                       for cell in line.split("|")
                       if (m := re.fullmatch(r" (\d[\d,.]*) % \[\d+\] ", cell))
                       and float(m.group(1).replace(",", "")) > 100]
            if flagged:
                self.assertIn("Above 100 % of a ceiling: [1] above", md)
        # Runs leave the stored figures as they were (they may add what their points reached).
        self.assertEqual(json.loads(self.files[0].read_text())["ceilings"],
                         json.loads(stored)["ceilings"])

    @staticmethod
    def header(md, line, cell):
        lines = md.splitlines()
        at = lines.index(line)
        while at > 0 and lines[at - 1].startswith("|"):
            at -= 1
        return lines[at].split("|")[line.split("|").index(cell)]

    def test_3_a_loaded_measurement_never_replaces_a_quiet_one(self):
        self.assertEqual(len(self.files), 1)
        doc = json.loads(self.files[0].read_text())
        # As in the issue: a quiet calibration of this machine, well above what it does now. A
        # thousand times the figures measured under load in test_1: both measurements are loaded,
        # by the test and by whatever else the machine runs (other tests under `ctest -j`), and
        # either can be several times slower than the other (a 2-thread figure measured while two
        # busy processes held both cores: 50 % between its own repetitions). Every figure must come out
        # below the quiet one, whatever the two loads were, for the reasons to name the drop.
        doc["verdict"] = {"state": "quiet", "reasons": [], "attempts": 1}
        doc["measured"] = "2026-11-28T10:00:00Z"
        for row in doc["ceilings"]:
            for key in ("copy_gbps", "sgemm_gflops", "dgemm_gflops"):
                row[key] *= 1000
        doc.pop("stale", None)
        quiet = json.dumps(doc, indent=2) + "\n"
        self.files[0].write_text(quiet)
        r = self.runner("calibrate", "--cpu-only")
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("not stored", r.stderr)
        self.assertIn("Kept the quiet calibration of 2026-11-28T10:00:00Z", r.stderr)
        self.assertIn("below the", r.stderr)
        self.assertEqual(self.files[0].read_text(), quiet)

    def test_4_check_fails_on_a_provisional_calibration(self):
        doc = json.loads(self.files[0].read_text())
        doc["verdict"] = {"state": "provisional", "reasons": ["other processes used 1.9 cores"]}
        self.files[0].write_text(json.dumps(doc))
        r = self.runner("calibrate", "--check", "--cpu-only")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("measured under load: other processes used 1.9 cores", r.stdout)
        self.assertIn("probe at 1 thread now", r.stdout)


if __name__ == "__main__":
    RUNNER = os.path.abspath(sys.argv.pop(1))
    unittest.main()
