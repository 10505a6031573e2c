"""Records read by the clients users open them in: pandas through the generated reader
(share/runner/python/runner_records.py, copied alone outside the tree) and LibreOffice Calc in a
comma-decimal locale through `runner export` (docs/analysis.md, "Records in a spreadsheet").

Usage: records_readers_test.py RUNNER_BINARY [-v] (the system Python: pandas).
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUNNER = None

CONFIG = """experiment: "2024"
kernel: gemm
repeat: {warmup: 1, min_samples: 2, max_samples: 2}
baseline: omp_serial
sweeps:
  - {variant: [omp_naive, openblas], size: [{m: 9, n: 7, k: 5}, 16], threads: [1, 2], dtype: [float, double]}
"""

TABLE = json.loads((ROOT / "runner" / "results" / "columns.json").read_text(encoding="utf-8"))
TYPES = {c["name"]: c["type"] for c in TABLE}

NS = {
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
}


def q(prefix, name):
    return "{%s}%s" % (NS[prefix], name)


def fods_sheet(path, sheet):
    """The rows of one sheet of a flat ODS file as Calc wrote it: a list of rows, each a list of
    (value type, value, text) per cell; repeated cells expanded (a trailing run of empty ones
    dropped)."""
    root = ET.parse(path).getroot()
    for table in root.iter(q("table", "table")):
        if table.get(q("table", "name")) != sheet:
            continue
        rows = []
        for row in table.iter(q("table", "table-row")):
            cells = []
            for cell in row:
                if cell.tag not in (q("table", "table-cell"), q("table", "covered-table-cell")):
                    continue
                kind = cell.get(q("office", "value-type"), "")
                value = cell.get(q("office", "value"))
                text = "\n".join("".join(p.itertext()) for p in cell.findall("text:p", NS))
                repeat = int(cell.get(q("table", "number-columns-repeated"), "1"))
                cells += [(kind, value, text)] * min(repeat, 1024)
            while cells and cells[-1][0] == "" and cells[-1][2] == "":
                cells.pop()
            if cells:
                rows.append(cells)
        return rows
    raise AssertionError(f"no sheet {sheet} in {path}")


class RecordsReadersTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = pathlib.Path(cls.tmp.name)
        (cls.dir / "c.yaml").write_text(CONFIG, encoding="utf-8")
        cls.out = cls.dir / "out"
        r = subprocess.run([RUNNER, str(cls.dir / "c.yaml"), "--out", str(cls.out), "-q",
                            "--no-calibrate"], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        with open(cls.out / "records.jsonl", encoding="utf-8") as f:
            cls.records = [json.loads(line) for line in f if line.strip()]
        assert len(cls.records) == 20, len(cls.records)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_pandas_reader_alone_outside_the_tree(self):
        # The generated module, copied alone into an empty folder and imported from there: it
        # needs no file of the runner beside it.
        reader = pathlib.Path(RUNNER).resolve().parents[1] / "share" / "runner" / "python" / \
            "runner_records.py"
        self.assertTrue(reader.is_file(), reader)
        alone = self.dir / "alone"
        alone.mkdir()
        shutil.copy(reader, alone)
        script = r"""
import json, sys
import pandas as pd
import runner_records
want = {"integer": "Int64", "number": "float64", "boolean": "boolean", "text": "string"}
table = json.load(open(sys.argv[2]))
for source in (sys.argv[1], sys.argv[1] + "/records.csv", sys.argv[1] + "/records.jsonl"):
    df = runner_records.read(source)
    assert list(df.columns) == [c["name"] for c in table], list(df.columns)
    got = {c: str(t) for c, t in df.dtypes.items()}
    assert got == {c["name"]: want[c["type"]] for c in table}, got
    assert len(df) == 20
    # what plain pandas gets wrong: an all-digit experiment name, a boolean column
    assert (df.experiment == "2024").all(), df.experiment
    assert df.verified.all() and str(df.verified.dtype) == "boolean"
    assert df.m.tolist().count(16) == 10
    assert set(df.omp_thread_cpus.dropna()) <= {"[0]", "[1]", "[0,1]", "[1,0]", "[0,0]", "[1,1]"}
    assert df.oversubscribed[df.threads.notna()].notna().all()
csv = runner_records.read(sys.argv[1] + "/records.csv")
jsonl = runner_records.read(sys.argv[1] + "/records.jsonl")
pd.testing.assert_frame_equal(csv, jsonl)
plain = pd.read_json(sys.argv[1] + "/records.jsonl", lines=True)
print("plain pandas: experiment", plain.experiment.dtype)
print("reader ok")
"""
        # No PYTHONPATH: the module is found in the working folder, as `-c` puts it on sys.path.
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        r = subprocess.run(["/usr/bin/python3", "-c", script, str(self.out),
                            str(ROOT / "runner" / "results" / "columns.json")],
                           cwd=alone, capture_output=True, text=True, timeout=120, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("reader ok", r.stdout)

    def test_workbook_reads_alike_in_a_comma_decimal_calc(self):
        soffice = shutil.which("soffice")
        if not soffice:
            self.skipTest("no LibreOffice (soffice) on this machine")
        r = subprocess.run([RUNNER, "export", str(self.out)], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        workbook = self.out / "records.xlsx"
        self.assertTrue(workbook.is_file())
        calc_out = self.dir / "calc"
        # A German Calc, as a user in Germany opens files: comma decimals, dot thousands.
        env = dict(os.environ, LANG="de_DE.UTF-8", LC_ALL="de_DE.UTF-8", LANGUAGE="de_DE")
        profile = "-env:UserInstallation=file://" + str(self.dir / "profile")
        for source in (workbook, self.out / "records.csv"):
            r = subprocess.run([soffice, "--headless", profile, "--convert-to", "fods", "--outdir",
                                str(calc_out), str(source)], capture_output=True, text=True,
                               timeout=180, env=env)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

        # The locale is in force: opened as CSV, a decimal is text there (what the workbook is for).
        csv_rows = fods_sheet(calc_out / "records.fods", "records")
        at = csv_rows[0].index(("string", None, "time_ms_median"))
        self.assertEqual(csv_rows[1][at][0], "string", csv_rows[1][at])

        # Both files convert to records.fods: the workbook again, alone, into its own folder.
        book_out = self.dir / "calc-book"
        r = subprocess.run([soffice, "--headless", profile, "--convert-to", "fods", "--outdir",
                            str(book_out), str(workbook)], capture_output=True, text=True,
                           timeout=180, env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        rows = fods_sheet(book_out / "records.fods", "records")
        header = [text for _, _, text in rows[0]]
        self.assertEqual(header, [c["name"] for c in TABLE])
        self.assertEqual(len(rows) - 1, len(self.records))
        checked = 0
        for record, row in zip(self.records, rows[1:]):
            row = row + [("", None, "")] * (len(header) - len(row))
            for name, (kind, value, text) in zip(header, row):
                v = record[name]
                where = f"{record['point_key']} {name}: {kind} {value!r} {text!r}, record {v!r}"
                if v is None or v == "":
                    self.assertEqual((kind, text), ("", ""), where)
                elif TYPES[name] in ("number", "integer"):
                    self.assertEqual(kind, "float", where)
                    # Calc writes a flat ODS value to 20 decimal places, so a small number loses its
                    # last digits there, not in the workbook: within 1e-13 (and the 5e-21 of the
                    # last place), where a misread one (7.344e-06 as 0.007344) is off by 1000.
                    self.assertLessEqual(abs(float(value) - v), 1e-13 * abs(v) + 1e-20, where)
                    checked += 1
                elif TYPES[name] == "boolean":
                    self.assertIn(kind, ("float", "boolean"), where)
                    self.assertEqual(float(value) != 0 if kind == "float" else value == "true", v,
                                     where)
                else:
                    self.assertEqual((kind, text), ("string", v), where)
        self.assertGreater(checked, 200)
        # The column table rides along on its own sheet.
        table = fods_sheet(book_out / "records.fods", "columns")
        self.assertEqual([r[0][2] for r in table[1:]], [c["name"] for c in TABLE])


if __name__ == "__main__":
    RUNNER = os.path.abspath(sys.argv.pop(1))
    unittest.main()
