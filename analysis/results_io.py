"""Loading and normalising a runner results directory.

Shared by report.py and compare.py.  A results directory holds

* ``records.csv``   - one row per measured point (the column contract is in
  docs/analysis.md; empty cells mean "not applicable"),
* ``records.jsonl`` - the same records as JSON lines (used when the CSV is
  missing, e.g. a run killed before the CSV was flushed),
* ``manifest.json`` - provenance and, optionally, the list of planned points.

Everything here is defensive: a partial or interrupted run must still load.
"""

from __future__ import annotations

import csv
import json
import math
import os
import sys
from typing import Any

import numpy as np
import pandas as pd

# The column table: every column of records.csv and records.jsonl, in order, with its type. One
# file holds it for the runner and for this module (the runner compiles it in; `runner columns`
# prints it).
# An installed runner keeps it beside analysis/ (PREFIX/share/runner/columns.json); the source
# tree in runner/results/. RUNNER_COLUMNS_FILE names another.
def _columns_file() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("RUNNER_COLUMNS_FILE", ""),
                  os.path.join(here, os.pardir, "columns.json"),
                  os.path.join(here, os.pardir, "runner", "results", "columns.json")]
    for path in candidates:
        if path and os.path.isfile(path):
            return path
    print("error: the runner's column table is missing: looked for "
          + " and ".join(os.path.normpath(p) for p in candidates[1:])
          + " (set RUNNER_COLUMNS_FILE, or install the runner again)", file=sys.stderr)
    sys.exit(2)


COLUMNS_FILE = _columns_file()
with open(COLUMNS_FILE, encoding="utf-8") as _fh:
    COLUMN_TABLE = json.load(_fh)

# Every column, in order: a record of an older run lacking some still loads (they are added empty).
CORE_COLUMNS = [c["name"] for c in COLUMN_TABLE]
# Columns that hold numbers.  Slurm ids are text: array job ids may look like "1234_5".
NUMERIC_COLUMNS = [c["name"] for c in COLUMN_TABLE if c["type"] in ("integer", "number")]
BOOL_COLUMNS = [c["name"] for c in COLUMN_TABLE if c["type"] == "boolean"]
# Categorical columns that are lower-cased and stripped for grouping.
KEY_COLUMNS = ["kernel", "variant", "backend", "dtype", "status"]
# The GPU backends of the runner's builds: CUDA (NVIDIA) and HIP (AMD GPUs and DCUs, docs/hip.md).
GPU_BACKENDS = ("cuda", "hip")

# Which variant of a run is the reference the others are measured against ("% of cuBLAS"), per
# kernel and backend. A reference is another implementation, not a ceiling: a kernel may beat it.
REFERENCE_VARIANTS = {
    "gemm": {"cuda": "cublas", "cpu": "openblas"},
    "transpose": {"cuda": "copy", "hip": "copy"},
    "conv2d": {"cuda": "cudnn"},
}
# Variants that are reference measurements, not implementations of the
# kernel: they never compete for "best variant" (a plain copy is not a
# transpose, it only bounds one).
REFERENCE_ONLY_VARIANTS = {"transpose": {"copy"}}

# Vendor library variants: references, not the project's own kernels.
VENDOR_VARIANTS = {"cublas", "cublas_tf32", "openblas", "cudnn"}

# How a reference variant is named where a figure is measured against it ("% of cuBLAS"): a
# reference is another implementation measured in the same run, not a ceiling of the machine
# (those come from `runner calibrate`, see ceilings.py).
REFERENCE_NAMES = {"cublas": "cuBLAS", "cublas_tf32": "cuBLAS TF32", "openblas": "OpenBLAS",
                   "cudnn": "cuDNN", "copy": "copy"}

# Throughput metric per kernel: (column, unit).
METRIC = {
    "gemm": ("gflops", "GFLOP/s"),
    "conv2d": ("gflops", "GFLOP/s"),
    "transpose": ("gbps", "GB/s"),
}
METRIC_UNIT = {"gflops": "GFLOP/s", "gbps": "GB/s"}

# Known variant order per kernel; keeps colours stable across figures.
KNOWN_VARIANTS = {
    "gemm": ["omp_serial", "omp_naive", "omp_blocked", "omp_tiled", "openblas",
             "naive_1d", "naive_2d", "shared", "regtile", "dmma", "cublas",
             "cublas_tf32"],
    "transpose": ["omp_serial", "omp_naive", "omp_blocked", "naive_row",
                  "naive_col", "smem", "smem_pad", "tiled_rows", "tiled_vec",
                  "copy"],
    "conv2d": ["omp_serial", "omp", "naive", "shared", "shared_reg", "cudnn"],
    "hello": ["hello"],
}

DTYPE_BYTES = {"float": 4, "double": 8, "half": 2, "bfloat16": 2}

TIMES = "\u00d7"  # multiplication sign used in size and block labels


def warn(msg: str) -> None:
    print(f"warning: {msg}", file=sys.stderr)


_HEX = set("0123456789abcdef")


def normalize_point_id(value: Any) -> str:
    """A point id as the runner writes it today: "p" and 16 hex digits.

    Runs of earlier releases wrote the 16 hex digits alone (which spreadsheets
    and pandas can read as numbers); those get their "p" so that runs of both
    kinds compare point by point.
    """
    text = "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value).strip()
    if len(text) == 16 and set(text) <= _HEX:
        return "p" + text
    return text


# --------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------

class UnusableResults(Exception):
    """A results directory that cannot be read: the commands say so and exit 2 (README's code for
    bad input; 1 means a point or the gate failed)."""


def _warn_skipped(path: str, lines: list[int], what: str) -> None:
    """One warning for the corrupt lines of a records file, naming the first ten."""
    if lines:
        shown = ", ".join(str(n) for n in lines[:10]) + (" ..." if len(lines) > 10 else "")
        warn(f"{path}: skipped {len(lines)} corrupt {what} (line {shown})")


def _read_csv(path: str) -> pd.DataFrame | None:
    """records.csv as text cells (types are fixed below, uniformly for the CSV and the JSONL
    path). A row whose cell count is not the header's (a crash's ragged line, a hand's edit) is
    skipped, and the skipped rows are named: pandas skips some silently and pads others."""
    rows, corrupt = [], []
    try:
        with open(path, newline="", encoding="utf-8", errors="replace") as fh:
            reader = csv.reader(fh, strict=True)
            header = next(reader, None)
            if header is None:
                return None
            if "point_id" not in header:
                raise UnusableResults(f"{path}: not a records file (its header has no point_id "
                                      "column)")
            for row in reader:
                if not row or all(not cell.strip("\0 ") for cell in row):
                    continue  # a blank line, or the NUL bytes a crash can leave
                if len(row) != len(header):
                    corrupt.append(reader.line_num)
                    continue
                rows.append(row)
    except csv.Error as exc:
        raise UnusableResults(f"{path}:{reader.line_num}: cannot be read as CSV ({exc})") from exc
    except OSError as exc:
        raise UnusableResults(f"{path}: cannot be read ({exc.strerror})") from exc
    _warn_skipped(path, corrupt, "row(s) whose cell count is not the header's")
    df = pd.DataFrame(rows, columns=header, dtype=object)
    return df.replace("", np.nan)


def _read_jsonl(path: str) -> pd.DataFrame | None:
    rows, corrupt = [], []
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for lineno, line in enumerate(fh, 1):
                line = line.strip().strip("\0")
                if not line:
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError:
                    obj = None  # typically the truncated last line of an interrupted run
                if isinstance(obj, dict):
                    rows.append(obj)
                else:
                    corrupt.append(lineno)
    except OSError as exc:
        raise UnusableResults(f"{path}: cannot be read ({exc.strerror})") from exc
    _warn_skipped(path, corrupt, "line(s) that are not a JSON object")
    if not rows:
        return None
    df = pd.DataFrame(rows)
    # Match the CSV convention: booleans as "true"/"false", nulls as NaN.
    for col in df.columns:
        df[col] = df[col].map(_json_cell)
    return df


def _json_cell(v: Any) -> Any:
    if v is None:
        return np.nan
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and math.isnan(v):
        return np.nan
    if isinstance(v, (dict, list)):
        return json.dumps(v)
    return str(v)


def _to_bool(v: Any) -> Any:
    if isinstance(v, str):
        s = v.strip().lower()
        if s in ("true", "1", "yes"):
            return True
        if s in ("false", "0", "no"):
            return False
        return np.nan
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    return np.nan


def check_results_dir(results_dir: str) -> None:
    """UnusableResults unless results_dir is a folder with records.csv or records.jsonl."""
    if not os.path.exists(results_dir):
        raise UnusableResults(f"{results_dir}: no such directory")
    if not os.path.isdir(results_dir):
        raise UnusableResults(f"{results_dir}: is a file, not a results directory (give the "
                              "folder that holds records.csv or records.jsonl)")
    if not any(os.path.isfile(os.path.join(results_dir, name))
               for name in ("records.csv", "records.jsonl")):
        raise UnusableResults(f"{results_dir}: not a results directory: it holds no records.csv "
                              "or records.jsonl")


def load_records(results_dir: str) -> pd.DataFrame:
    """Return the normalised records of a results directory.

    Reads records.csv, falling back to records.jsonl.  Missing contract
    columns are added empty; numbers become floats (NaN = not applicable);
    a point_id measured twice (resumed run) keeps its last record.
    Derived columns (size_x, size_label, size_full, config, series_key, ok)
    are added by :func:`add_derived`.
    """
    df = None
    csv_path = os.path.join(results_dir, "records.csv")
    jsonl_path = os.path.join(results_dir, "records.jsonl")
    check_results_dir(results_dir)
    if os.path.isfile(csv_path):
        try:
            df = _read_csv(csv_path)
        except UnusableResults as exc:
            if not os.path.isfile(jsonl_path):
                raise
            warn(f"{exc}; reading {jsonl_path} instead")
    if df is None and os.path.isfile(jsonl_path):
        df = _read_jsonl(jsonl_path)
    if df is None:
        df = pd.DataFrame(columns=CORE_COLUMNS)

    noise_recorded = "noise_warning" in df.columns
    for col in CORE_COLUMNS:
        if col not in df.columns:
            df[col] = np.nan
    for col in NUMERIC_COLUMNS:
        if col in df.columns:
            df[col] = pd.to_numeric(df[col], errors="coerce").astype(float)
    for col in BOOL_COLUMNS:
        if col in df.columns:
            df[col] = df[col].map(_to_bool)
    for col in KEY_COLUMNS:
        df[col] = df[col].fillna("").astype(str).str.strip().str.lower()
    for col in ("experiment", "point_id", "message", "host", "gpu",
                "timestamp", "slurm_job_id", "slurm_array_task_id", "noise_warning",
                "point_key", "stop_reason"):
        df[col] = df[col].fillna("").astype(str).str.strip()

    df["point_id"] = df["point_id"].map(normalize_point_id)
    has_id = df["point_id"] != ""
    dup = has_id & df.duplicated("point_id", keep="last")
    if dup.any():
        warn(f"{int(dup.sum())} repeated point_id record(s); keeping the last")
        df = df[~dup]
    df = add_derived(df.reset_index(drop=True))
    df.attrs["noise_recorded"] = noise_recorded
    return df


def load_manifest(results_dir: str) -> dict:
    path = os.path.join(results_dir, "manifest.json")
    if not os.path.isfile(path):
        return {}
    try:
        with open(path, encoding="utf-8") as fh:
            obj = json.load(fh)
    except (OSError, json.JSONDecodeError) as exc:
        warn(f"{path}: cannot read manifest ({exc})")
        return {}
    return obj if isinstance(obj, dict) else {}


# --------------------------------------------------------------------------
# Derived columns
# --------------------------------------------------------------------------

def fmt_int(v: float) -> str:
    """Format a size-like number: integers without decimals."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return ""
    if float(v).is_integer():
        return str(int(v))
    return f"{v:g}"


def _dims(row: pd.Series) -> list[float]:
    """The problem dimensions of one record, per kernel convention."""
    m, n, k = row["m"], row["n"], row["k"]
    kernel = row["kernel"]
    if kernel == "gemm":
        dims = [m, n, k]
    elif kernel == "transpose":
        dims = [m, n]
    elif kernel == "conv2d":
        # image n x n; the contract has m = n, tolerate either being empty
        dims = [m if math.isfinite(m) else n, n if math.isfinite(n) else m]
    else:
        dims = [m, n, k]
    return [d for d in dims if math.isfinite(d)]


def _size_fields(row: pd.Series) -> tuple[float, str, str]:
    dims = _dims(row)
    if not dims:
        return (math.nan, "", "")
    # x position: geometric mean, which equals m for a square problem so the
    # common case reads naturally, and orders non-square problems by volume.
    x = float(np.exp(np.mean(np.log(np.maximum(dims, 1e-300)))))
    full = TIMES.join(fmt_int(d) for d in dims)
    short = fmt_int(dims[0]) if all(d == dims[0] for d in dims) else full
    ks = row.get("kernel_size", math.nan)
    if isinstance(ks, float) and math.isfinite(ks):
        full += f", K={fmt_int(ks)}"
    return (x, short, full)


def grid_label(grid: Any) -> str:
    """A grid value as configs write it; 0 is the variant's own choice (one thread per output)."""
    if grid is None or (isinstance(grid, float) and not math.isfinite(grid)) or grid == "":
        return ""
    try:
        value = float(grid)
    except (TypeError, ValueError):
        return str(grid).strip()
    return "auto" if value == 0 else fmt_int(value)


def config_label(row: pd.Series) -> str:
    """Human label of the tuning configuration: block shape (and grid) or threads."""
    bx, by, th = row["block_x"], row["block_y"], row["threads"]
    grid = grid_label(row.get("grid", None))
    if math.isfinite(bx):
        label = f"block {fmt_int(bx)}{TIMES}{fmt_int(by if math.isfinite(by) else 1)}"
        return label + (f", grid {grid}" if grid else "")
    if math.isfinite(th):
        return f"{fmt_int(th)} thread" + ("" if th == 1 else "s")
    return f"grid {grid}" if grid else "\u2014"


def shape_of(row: pd.Series) -> str:
    """The problem's shape, its size aside: the ratios of its dimensions to the first ("1:1:1"
    for a cube). Points of one shape lie on one size sweep; a figure joins only those by lines,
    never 2048³ to 5000×3000×7000."""
    dims = _dims(row)
    if not dims or dims[0] <= 0:
        return ""
    return ":".join(f"{d / dims[0]:.4g}" for d in dims)


def add_derived(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    if "kernel_size" not in df.columns:
        df["kernel_size"] = np.nan
    if len(df):
        sizes = df.apply(_size_fields, axis=1, result_type="expand")
        df["size_x"], df["size_label"], df["size_full"] = sizes[0], sizes[1], sizes[2]
        df["config"] = df.apply(config_label, axis=1)
        df["shape"] = df.apply(shape_of, axis=1)
    else:
        for col in ("size_label", "size_full", "config", "shape"):
            df[col] = pd.Series(dtype=str)
        df["size_x"] = pd.Series(dtype=float)
    df["size_x"] = df["size_x"].astype(float)
    t = pd.to_numeric(df["time_ms_median"], errors="coerce").astype(float)
    df["ok"] = (df["status"] == "ok") & np.isfinite(t) & (t > 0)
    # The sampler's verdict on the spread: a point is noisy when its samples did not settle to
    # repeat.target_rsd (noise_warning says so); rsd is the recorded relative spread, else the
    # stddev over the mean of runs that predate the column.
    df["noisy"] = df["ok"] & (df["noise_warning"] != "")
    rsd = df["time_ms_rsd"].astype(float)
    df["rsd"] = rsd.fillna(df["time_ms_stddev"] / df["time_ms_mean"])
    return df


def has_noise_column(df: pd.DataFrame) -> bool:
    """Whether the run recorded noise warnings at all (runs of early releases did not): without
    the column no point is known to be noisy, which is not the same as quiet."""
    return bool(df.attrs.get("noise_recorded", False))


def arithmetic_intensity(df: pd.DataFrame) -> pd.Series:
    """FLOP per byte for each record.

    Preference: the recorded ``arith_intensity`` column; else the ratio of the
    recorded rates gflops / gbps (same time base, so it is flops / bytes);
    else a compulsory-traffic model (each operand read once, result written
    once) for gemm and conv2d.
    """
    ai = pd.Series(np.nan, index=df.index, dtype=float)
    if "arith_intensity" in df.columns:
        ai = df["arith_intensity"].astype(float).where(df["arith_intensity"] > 0)
    ratio = df["gflops"] / df["gbps"]
    ratio = ratio.where(np.isfinite(ratio) & (ratio > 0))
    ai = ai.fillna(ratio)

    size = df["dtype"].map(DTYPE_BYTES).astype(float)
    m, n, k = df["m"], df["n"].fillna(df["m"]), df["k"]
    gemm = 2 * m * n * k / (size * (m * k + k * n + m * n))
    K = df["kernel_size"]
    conv = 2 * m * n * K * K / (size * (2 * m * n + K * K))
    model = pd.Series(np.nan, index=df.index, dtype=float)
    model[df["kernel"] == "gemm"] = gemm[df["kernel"] == "gemm"]
    model[df["kernel"] == "conv2d"] = conv[df["kernel"] == "conv2d"]
    return ai.fillna(model)


def best_per(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Rows with the lowest median time within each group (ok rows only)."""
    ok = df[df["ok"]]
    if ok.empty:
        return ok
    idx = ok.groupby(keys, sort=False, dropna=False)["time_ms_median"].idxmin()
    return ok.loc[idx.values]


def baseline_variant(df: pd.DataFrame) -> str:
    """The variant(s) the records' speedup is measured against (is_baseline); empty when the
    run has no baseline."""
    base = df.loc[df["is_baseline"] == True, "variant"].unique()  # noqa: E712
    return ", ".join(sorted(base))


def variant_order(kernel: str, variants) -> list[str]:
    known = KNOWN_VARIANTS.get(kernel, [])
    vs = sorted(set(variants))
    return [v for v in known if v in vs] + [v for v in vs if v not in known]


# --------------------------------------------------------------------------
# Manifest helpers
# --------------------------------------------------------------------------

def _first(d: dict, keys) -> Any:
    for key in keys:
        if isinstance(d, dict) and d.get(key) not in (None, "", [], {}):
            return d[key]
    return None


def _scalar_text(v: Any) -> str:
    if isinstance(v, (list, tuple)):
        return ", ".join(_scalar_text(x) for x in v)
    if isinstance(v, dict):
        name = _first(v, ["name", "model"])
        return str(name) if name is not None else json.dumps(v, sort_keys=True)
    return str(v)


def provenance(manifest: dict, df: pd.DataFrame) -> list[tuple[str, str]]:
    """(label, value) pairs describing where and when the run happened.

    Reads the manifest defensively (top-level keys and an "environment"-like
    sub-object), falling back to the CSV's host/gpu/timestamp columns.
    """
    env = _first(manifest, ["environment", "env", "system", "host_info"])
    env = env if isinstance(env, dict) else {}

    def pick(keys):
        v = _first(env, keys)
        return v if v is not None else _first(manifest, keys)

    def csv_values(col):
        vals = [v for v in df[col].unique() if v] if col in df else []
        return ", ".join(sorted(vals)) if vals else None

    out: list[tuple[str, str]] = []
    exp = _first(manifest, ["experiment", "name"]) or csv_values("experiment")
    if exp:
        out.append(("experiment", _scalar_text(exp)))
    # "config" may be the parsed config object; only a path is shown.
    cfg = _first(manifest, ["config_file", "config_path", "config"])
    if cfg and not isinstance(cfg, (dict, list)):
        out.append(("config", _scalar_text(cfg)))
    shard = _first(manifest, ["shard"])
    if shard:
        out.append(("shard", _scalar_text(shard)))
    state = _first(manifest, ["state", "status"])
    if state and not isinstance(state, (dict, list)):
        out.append(("run state", _scalar_text(state)))
    host = pick(["host", "hostname", "node"]) or csv_values("host")
    out.append(("host", _scalar_text(host) if host else "unknown"))
    cpu = pick(["cpu_model", "cpu"])
    if cpu:
        out.append(("CPU", _scalar_text(cpu)))
    gpu = pick(["gpu", "gpu_name", "gpus", "gpu_model"])
    gpu_text = _gpu_text(gpu) if gpu is not None else None
    out.append(("GPU", gpu_text or csv_values("gpu") or "none recorded"))
    rev = pick(["git_revision", "git_rev", "git_commit", "git_sha", "revision",
                "git"])
    out.append(("git revision", _scalar_text(rev) if rev else "unknown"))
    date = pick(["created", "timestamp", "date", "started", "start_time"])
    updated = _first(manifest, ["updated", "finished", "end_time"])
    if date and updated and updated != date:
        date = f"{_scalar_text(date)} (last update {_scalar_text(updated)})"
    if not date and "timestamp" in df:
        stamps = sorted(v for v in df["timestamp"].unique() if v)
        if stamps:
            date = stamps[0] if len(stamps) == 1 else f"{stamps[0]} .. {stamps[-1]}"
    out.append(("date", _scalar_text(date) if date else "unknown"))

    # The ceilings the records' pct_peak_* are against: which calibration, measured when, where
    # and how (quiet, or provisional under load, or stale).
    calibration = manifest.get("calibration") if isinstance(manifest, dict) else None
    if isinstance(calibration, dict):
        from ceilings import CalibrationState
        files = calibration.get("files") if isinstance(calibration.get("files"), dict) else {}
        for kind, label in (("cpu", "ceilings (CPU)"), ("gpu", "ceilings (GPU)")):
            doc = calibration.get(kind)
            if isinstance(doc, dict):
                out.append((label, CalibrationState.of(doc, files.get(kind)).text()))

    # The machine's load as the run started and ended: with the governor, turbo and caches below,
    # what explains a noisy run.
    load = manifest.get("load_average") if isinstance(manifest, dict) else None
    if isinstance(load, dict):
        def minutes(v):
            return " / ".join(f"{x:.2f}" for x in v) if isinstance(v, list) else "not recorded"
        out.append(("load average (1 / 5 / 15 min)",
                    f"at the start {minutes(load.get('start'))}, at the end {minutes(load.get('end'))}"))

    # Any further scalar facts the runner recorded about the environment
    # (compiler, CUDA version, ...), shown as-is.
    shown = {"host", "hostname", "node", "cpu_model", "cpu", "gpu", "gpu_name",
             "gpus", "gpu_model", "git_revision", "git_rev", "git_commit",
             "git_sha", "revision", "git", "created", "timestamp", "date",
             "started", "start_time", "load_average"}
    for key in sorted(env):
        val = env[key]
        if key in shown or val in (None, "", [], {}):
            continue
        if isinstance(val, dict):
            continue
        out.append((key.replace("_", " "), _scalar_text(val)))
    return out


def _gpu_text(gpu: Any) -> str | None:
    """One line for the manifest's GPU entry: a name, a list, or an object
    such as {"present": true, "name": ..., "compute_capability": ..., ...}."""
    if not isinstance(gpu, dict):
        return _scalar_text(gpu)
    if gpu.get("present") is False:
        reason = gpu.get("reason") or gpu.get("absent_reason")
        return "none" + (f" ({reason})" if reason else "")
    name = _first(gpu, ["name", "model"]) or "unnamed GPU"
    facts = []
    if gpu.get("compute_capability"):
        facts.append(f"cc {gpu['compute_capability']}")
    if gpu.get("sm_count"):
        facts.append(f"{gpu['sm_count']} SMs")
    mem = gpu.get("global_memory_bytes")
    if isinstance(mem, (int, float)) and mem > 0:
        facts.append(f"{mem / 2**30:.0f} GiB")
    if gpu.get("driver_version"):
        facts.append(f"driver {gpu['driver_version']}")
    if gpu.get("runtime_version"):
        facts.append(f"runtime {gpu['runtime_version']}")
    return str(name) + (f" ({', '.join(facts)})" if facts else "")


def manifest_points(manifest: dict) -> list[dict]:
    """Planned points listed in the manifest, as dicts with a point_id."""
    pts = manifest.get("points") if isinstance(manifest, dict) else None
    out = []
    if isinstance(pts, list):
        for p in pts:
            if isinstance(p, dict) and p.get("point_id") not in (None, ""):
                out.append(dict(p, point_id=normalize_point_id(p["point_id"])))
            elif isinstance(p, str) and p:
                out.append({"point_id": normalize_point_id(p)})
    return out
