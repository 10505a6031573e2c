"""The calibrated ceilings of a run: what the machine can do at most, measured by
`runner calibrate` (runner/measure/calibration.cpp) and copied into the run's
manifest.json under "calibration":

    gpu.ceilings   copy_gbps (cudaMemcpy device to device), fp32_fma_gflops,
                   fp64_fma_gflops, sgemm_gflops / dgemm_gflops (cuBLAS),
                   sgemm_tf32_gflops (cuBLAS TF32)
    cpu.ceilings   per OpenMP thread count: copy_gbps (a stream-like copy),
                   sgemm_gflops / dgemm_gflops (OpenBLAS)

These are the roofs of the roofline and the "ceiling" of every table, never the
best point of the run (a run's fastest point bounds nothing: the next kernel may
beat it).  A CPU ceiling depends on the thread count; between calibrated counts
it is interpolated linearly, outside them the nearest is taken, as the runner
does for pct_peak_* (runner/results/ceilings.cpp).
"""

from __future__ import annotations

import math
import os
from typing import NamedTuple


class Roof(NamedTuple):
    """One ceiling: its value (GB/s or GFLOP/s) and what it is, for labels."""
    value: float
    label: str


class Ceilings:
    """The manifest's calibrated ceilings; empty (falsy) when the run had none."""

    def __init__(self, calibration: dict | None):
        calibration = calibration if isinstance(calibration, dict) else {}
        gpu = calibration.get("gpu") if isinstance(calibration.get("gpu"), dict) else {}
        cpu = calibration.get("cpu") if isinstance(calibration.get("cpu"), dict) else {}
        table = gpu.get("ceilings") if isinstance(gpu.get("ceilings"), dict) else {}
        self.gpu = {k: float(v) for k, v in table.items() if _positive(v)}
        rows = cpu.get("ceilings") if isinstance(cpu.get("ceilings"), list) else []
        self.cpu = sorted(
            (int(r["threads"]), {k: float(v) for k, v in r.items() if k != "threads" and _positive(v)})
            for r in rows if isinstance(r, dict) and _positive(r.get("threads")))
        self.gpu_device = str(gpu.get("device") or "")
        self.cpu_device = str(cpu.get("device") or "")
        files = calibration.get("files") if isinstance(calibration.get("files"), dict) else {}
        self.states = {backend: CalibrationState.of(doc, files.get(kind))
                       for backend, kind, doc in (("cpu", "cpu", cpu), ("cuda", "gpu", gpu),
                                                  ("hip", "gpu", gpu)) if doc}

    @classmethod
    def from_manifest(cls, manifest: dict) -> "Ceilings":
        return cls(manifest.get("calibration") if isinstance(manifest, dict) else None)

    def __bool__(self) -> bool:
        return bool(self.gpu or self.cpu)

    def has(self, backend: str) -> bool:
        return bool(self.gpu) if backend != "cpu" else bool(self.cpu)

    def bandwidth(self, backend: str, threads: float = 1) -> Roof | None:
        """The measured copy bandwidth: the GPU's, or the CPU's at `threads`."""
        if backend != "cpu":
            v = self.gpu.get("copy_gbps")
            return Roof(v, "cudaMemcpy copy") if v else None
        v = self._cpu_at("copy_gbps", threads)
        return Roof(v, f"copy, {_threads(threads)}") if v else None

    def compute(self, backend: str, dtype: str, threads: float = 1, tf32: bool = False) -> Roof | None:
        """The arithmetic ceiling of a dtype: on the GPU the higher of its FMA peak and cuBLAS
        GEMM (FP64 tensor cores make DGEMM the higher on an H100), TF32 cuBLAS for TF32
        variants, as the runner's pct_peak_flops; on the CPU OpenBLAS GEMM at `threads`."""
        if backend != "cpu":
            if tf32:
                v = self.gpu.get("sgemm_tf32_gflops")
                return Roof(v, "TF32 cuBLAS") if v else None
            fma, gemm, name = (("fp64_fma_gflops", "dgemm_gflops", "FP64") if dtype == "double"
                               else ("fp32_fma_gflops", "sgemm_gflops", "FP32"))
            candidates = [(self.gpu[k], label) for k, label in (
                (fma, f"{name} FMA peak"),
                (gemm, "cuBLAS DGEMM (FP64 tensor cores)" if dtype == "double" else "cuBLAS SGEMM"))
                if k in self.gpu]
            return Roof(*max(candidates)) if candidates else None
        key, name = (("dgemm_gflops", "OpenBLAS DGEMM") if dtype == "double"
                     else ("sgemm_gflops", "OpenBLAS SGEMM"))
        v = self._cpu_at(key, threads)
        return Roof(v, f"{name}, {_threads(threads)}") if v else None

    def _cpu_at(self, key: str, threads: float) -> float | None:
        table = [(t, row[key]) for t, row in self.cpu if key in row]
        if not table:
            return None
        threads = threads if threads and math.isfinite(threads) else 1
        if threads <= table[0][0]:
            return table[0][1]
        if threads >= table[-1][0]:
            return table[-1][1]
        for (t0, v0), (t1, v1) in zip(table, table[1:]):
            if t0 <= threads <= t1:
                return v0 + (v1 - v0) * (threads - t0) / (t1 - t0)
        return table[-1][1]

    def state(self, backend: str) -> "CalibrationState | None":
        """How the ceilings of a backend were measured (None without them)."""
        return self.states.get(backend)

    def describe(self, backend: str) -> str:
        """One line naming the ceilings of a backend, for the report's tables."""
        if backend != "cpu" and self.gpu:
            parts = [f"{name} {self.gpu[key]:,.0f} {unit}" for key, name, unit in (
                ("copy_gbps", "copy", "GB/s"), ("fp32_fma_gflops", "FP32 FMA", "GFLOP/s"),
                ("sgemm_gflops", "cuBLAS SGEMM", "GFLOP/s"),
                ("fp64_fma_gflops", "FP64 FMA", "GFLOP/s"),
                ("dgemm_gflops", "cuBLAS DGEMM", "GFLOP/s"),
                ("sgemm_tf32_gflops", "TF32 cuBLAS", "GFLOP/s")) if key in self.gpu]
            return f"{self.gpu_device or 'GPU'}: " + ", ".join(parts)
        if backend == "cpu" and self.cpu:
            rows = []
            for t, row in self.cpu:
                figures = [f"{name} {row[key]:,.0f} {unit}" for key, name, unit in (
                    ("copy_gbps", "copy", "GB/s"), ("sgemm_gflops", "SGEMM", "GFLOP/s"),
                    ("dgemm_gflops", "DGEMM", "GFLOP/s")) if key in row]
                rows.append(f"{_threads(t)}: " + ", ".join(figures))
            return f"{self.cpu_device or 'CPU'}: " + "; ".join(rows)
        return ""


class CalibrationState(NamedTuple):
    """Which calibration a run used and how it stands: when and where it was measured, whether
    in the quiet ("quiet"), under load ("provisional", with why) or by an earlier release that
    recorded no conditions (""), and whether a run's point found it stale."""
    device: str
    measured: str
    host: str
    state: str
    reasons: tuple
    stale: str
    file: str

    @classmethod
    def of(cls, doc: dict, file) -> "CalibrationState":
        verdict = doc.get("verdict") if isinstance(doc.get("verdict"), dict) else {}
        stale = doc.get("stale") if isinstance(doc.get("stale"), dict) else {}
        return cls(device=str(doc.get("device") or ""), measured=str(doc.get("measured") or ""),
                   host=str(doc.get("host") or ""), state=str(verdict.get("state") or ""),
                   reasons=tuple(str(r) for r in verdict.get("reasons") or ()),
                   stale=str(stale.get("reason") or ""), file=str(file or ""))

    def text(self) -> str:
        """One line for the provenance table."""
        out = f"{self.device or 'device'}: measured {self.measured or 'at an unknown time'}"
        out += f" on {self.host}" if self.host else ""
        if self.state == "provisional":
            out += " under load, provisional (" + "; ".join(self.reasons) + ")"
        elif self.state:
            out += f", {self.state}"
        else:
            out += " (no conditions recorded: an earlier release)"
        if self.stale:
            out += f"; stale: {self.stale}"
        # The file's name, not its folder: a report that is shared names no folder of the
        # machine it was made on; the run keeps a copy in its calibration/.
        return out + (f"; {os.path.basename(self.file)}" if self.file else "")

    def above_note(self, which: str) -> str:
        """Why a point is above this calibration's ceiling, for runs whose records predate
        ceiling_note: what the calibration says of itself."""
        if self.state == "provisional":
            return (f"above a {which} measured under load ({self.reasons[0] if self.reasons else 'noisy'}): "
                    "the ceiling is too low")
        if self.stale:
            return f"above a stale {which} ({self.stale})"
        return (f"above the {which} calibrated {('on ' + self.measured) if self.measured else 'before'}: "
                "the ceiling is stale or this problem suits the hardware better (no reason recorded)")


def _positive(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0


def _threads(t: float) -> str:
    t = int(t) if float(t).is_integer() else t
    return f"{t} thread" + ("" if t == 1 else "s")
